//! The ring kernel with K barriers (issue 12's benchmark family): a rotation round a ring in local
//! memory, where at barrier k each thread gives up `a[(lid + k) % gsize]`, which it has just
//! written, takes `a[(lid + k + 1) % gsize]` and is promised its right neighbour's id there.
//! Its cost grows with K, which the benchmark measures and the language server's test uses to
//! have a verification to cancel.

/// The ring kernel with `barriers` barriers, named `ring{barriers}`.
pub fn ring(barriers: usize) -> String {
    let cell = |k: usize| if k == 0 { "lid".to_string() } else { format!("(lid + {k}) % gsize") };
    let mut text = format!(
        "kernel ring{barriers} {{\n  local int[gsize] a;\n  requires Perm(a[lid], write);\n  ensures Perm(a[{last}], write) ** a[{last}] == (lid + 1) % gsize;\n  void main() {{\n",
        last = cell(barriers)
    );
    for k in 0..barriers {
        let (held, next) = (cell(k), cell(k + 1));
        text.push_str(&format!(
            "    a[{held}] := lid;\n    barrier(local) {{\n      requires Perm(a[{held}], write) ** a[{held}] == lid;\n      ensures Perm(a[{next}], write) ** a[{next}] == (lid + 1) % gsize;\n    }}\n"
        ));
    }
    text + "  }\n}\n"
}
