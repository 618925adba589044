// Structs and typedefs: a struct variable is a variable per field, an array of structs an array
// per field.

typedef unsigned int u32;

typedef struct {
  int key;
  float weight;
} Entry;

struct pair {
  int first;
  int second;
};

struct span {
  struct pair ends;
  u32 length;
};

/*@
  context \pointer_length(entries) == get_global_size(0);
  context Perm(&entries[get_global_id(0)], write);
  requires 0 <= entries[get_global_id(0)].key && entries[get_global_id(0)].key < 1000;
  ensures entries[get_global_id(0)].key == \old(entries[get_global_id(0)].key) + 1;
@*/
__kernel void bump(__global Entry *entries) {
  Entry *mine = entries + get_global_id(0);
  mine->key = mine->key + 1;
}

int total(struct pair p) {
  return p.first + p.second;
}

void swap(__global struct pair *p) {
  int first = p->first;
  p->first = p->second;
  p->second = first;
}

/*@
  context \pointer_length(pairs) == get_global_size(0);
  context Perm(&pairs[get_global_id(0)].first, write) ** Perm(&pairs[get_global_id(0)].second, write);
  ensures pairs[get_global_id(0)].first == \old(pairs[get_global_id(0)].second);
  ensures pairs[get_global_id(0)].second == \old(pairs[get_global_id(0)].first);
@*/
__kernel void swap_pairs(__global struct pair *pairs) {
  swap(&pairs[get_global_id(0)]);
}

__kernel void by_value(struct span s, int k) {
  __requires(s.ends.first == 1 && s.ends.second == 2 && s.length == 3u);
  __requires(-1000 < k && k < 1000);
  struct span copy = s;
  copy.ends.second = k;
  struct pair p;
  p = copy.ends;
  int t = total(p);
  __assert(t == 1 + k);
  __assert(s.ends.second == 2 && copy.length == 3u);
}

__kernel void wrong_field(struct span s) {
  __requires(s.ends.first == 1);
  __assert(s.ends.second == 1);
}

/*@
  context get_local_size(0) <= 64;
  context \pointer_length(out) == get_global_size(0);
  context Perm(&out[get_global_id(0)], write);
  requires Perm(&cells[\ltid], write);
  ensures out[get_global_id(0)] == 2 * ((\ltid + 1) % get_local_size(0));
@*/
__kernel void neighbours(__global int *out) {
  __local struct pair cells[64];
  int i = get_local_id(0);
  cells[i].first = i;
  cells[i].second = 2 * i;
  /*@
    context Perm(&out[get_global_id(0)], write);
    requires Perm(&cells[\ltid], write) ** cells[\ltid].second == 2 * \ltid;
    ensures Perm(&cells[(\ltid + 1) % get_local_size(0)].second, read);
    ensures cells[(\ltid + 1) % get_local_size(0)].second == 2 * ((\ltid + 1) % get_local_size(0));
  @*/
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = cells[(i + 1) % get_local_size(0)].second;
}

__kernel void field_race(__global struct pair *pairs) {
  pairs[3].second = get_global_id(0);
}

/*@
  context \pointer_length(pairs) == get_global_size(0);
  context Perm(&pairs[get_global_id(0)].second, write);
@*/
__kernel void other_field(__global struct pair *pairs) {
  pairs[get_global_id(0)].first = 1;
}
