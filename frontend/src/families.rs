//! Kernels generated at any size, each correct (every one verifies), for measuring how lockstep's
//! cost grows with a kernel (`lockstep bench`) and for tests that need a large kernel. Each family
//! grows one dimension a real kernel grows in: barriers in sequence, loops of barriers, arrays
//! handed over at one barrier.
//!
//! - [`Family::Ring`]: `size` barriers in sequence; at each, ownership of the local array `a`
//!   moves one cell round the ring (the thread that wrote `a[lid + k]` gives it to its left
//!   neighbour), the wrap-around written as two guarded cases (`lid + k < gsize` and `>=`), and the
//!   barrier promises the writer's id.
//! - [`Family::RingMod`]: the same rotation with the wrap-around written `(lid + k) % gsize`
//!   (issue 12's ring, `examples/ring/ring_rotate.pvl` at size 4).
//! - [`Family::PingPong`]: `size` barriers; ownership alternates between `a[lid]` and the right
//!   neighbour's cell, with the value written before each barrier promised after it.
//! - [`Family::SeqLoop`]: `size` loops in sequence, each with a barrier pair in its body: the
//!   first hands the neighbour's cell over for reading, the second gives the own cell back.
//! - [`Family::ArrBar`]: `size` local arrays, each handed over at one barrier.

use std::fmt::Write;

/// A family of generated kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    Ring,
    RingMod,
    PingPong,
    SeqLoop,
    ArrBar,
}

impl Family {
    /// Every family, in the order `lockstep bench` reports them.
    pub const ALL: [Family; 5] = [Family::Ring, Family::PingPong, Family::SeqLoop, Family::ArrBar, Family::RingMod];

    /// The family's name, as `lockstep bench --family` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Ring => "ring",
            Family::RingMod => "ringmod",
            Family::PingPong => "pingpong",
            Family::SeqLoop => "seqloop",
            Family::ArrBar => "arrbar",
        }
    }

    /// The family of a name.
    pub fn named(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|family| family.name() == name)
    }

    /// What grows with the size.
    pub fn dimension(self) -> &'static str {
        match self {
            Family::Ring | Family::RingMod | Family::PingPong => "barriers",
            Family::SeqLoop => "loops",
            Family::ArrBar => "arrays",
        }
    }

    /// The kernel of this family at `size` (at least 1), named after both (`ring32`).
    pub fn kernel(self, size: usize) -> String {
        let size = size.max(1);
        match self {
            Family::Ring => ring(size),
            Family::RingMod => ring_mod(size),
            Family::PingPong => ping_pong(size),
            Family::SeqLoop => seq_loop(size),
            Family::ArrBar => arr_bar(size),
        }
    }
}

/// A clause about the cell `lid + k` round the ring, as two guarded cases: `clause(index)` where
/// the cell does not wrap and where it does.
fn round_the_ring(k: usize, clause: impl Fn(&str) -> String) -> String {
    if k == 0 {
        return clause("lid");
    }
    let (plain, wrapped) = (format!("lid + {k}"), format!("lid + {k} - gsize"));
    format!("(lid + {k} < gsize ==> {}) ** (lid + {k} >= gsize ==> {})", clause(&plain), clause(&wrapped))
}

fn ring(barriers: usize) -> String {
    // The writer of the cell a thread holds after a barrier is its right neighbour.
    let neighbour = "(lid + 1 < gsize ? lid + 1 : 0)";
    let perm = |k| round_the_ring(k, |cell| format!("Perm(a[{cell}], write)"));
    let value = |k, value: &str| round_the_ring(k, |cell| format!("a[{cell}] == {value}"));
    let mut text = format!(
        "kernel ring{barriers} {{\n  local int[gsize] a;\n\n  requires {barriers} < gsize;\n  requires Perm(a[lid], \
         write);\n  ensures {} ** {};\n  void main() {{\n",
        perm(barriers),
        value(barriers, neighbour)
    );
    for k in 0..barriers {
        if k == 0 {
            text.push_str("    a[lid] := lid;\n");
        } else {
            let _ = writeln!(
                text,
                "    if (lid + {k} < gsize) {{ a[lid + {k}] := lid; }} else {{ a[lid + {k} - gsize] := lid; }}"
            );
        }
        let _ = write!(
            text,
            "    barrier(local) {{\n      requires {} ** {};\n      ensures {} ** {};\n    }}\n",
            perm(k),
            value(k, "lid"),
            perm(k + 1),
            value(k + 1, neighbour)
        );
    }
    text + "  }\n}\n"
}

fn ring_mod(barriers: usize) -> String {
    let cell = |k: usize| if k == 0 { "lid".to_string() } else { format!("(lid + {k}) % gsize") };
    let mut text = format!(
        "kernel ringmod{barriers} {{\n  local int[gsize] a;\n\n  requires Perm(a[lid], write);\n  ensures Perm(a[{last}], \
         write) ** a[{last}] == (lid + 1) % gsize;\n  void main() {{\n",
        last = cell(barriers)
    );
    for k in 0..barriers {
        let (held, next) = (cell(k), cell(k + 1));
        let _ = write!(
            text,
            "    a[{held}] := lid;\n    barrier(local) {{\n      requires Perm(a[{held}], write) ** a[{held}] == lid;\n      \
             ensures Perm(a[{next}], write) ** a[{next}] == (lid + 1) % gsize;\n    }}\n"
        );
    }
    text + "  }\n}\n"
}

fn ping_pong(barriers: usize) -> String {
    let own = ("a[lid]", "lid");
    let next = ("a[(lid + 1) % gsize]", "(lid + 1) % gsize");
    let last = if barriers.is_multiple_of(2) { own.0 } else { next.0 };
    let mut text = format!(
        "kernel pingpong{barriers} {{\n  local int[gsize] a;\n\n  requires Perm(a[lid], write);\n  ensures Perm({last}, \
         write);\n  void main() {{\n"
    );
    for k in 0..barriers {
        // The cell each thread holds, with the id of the thread whose own cell it is.
        let ((held, id), (given, given_id)) = if k.is_multiple_of(2) { (own, next) } else { (next, own) };
        let _ = write!(
            text,
            "    {held} := {id} + {k};\n    barrier(local) {{\n      requires Perm({held}, write) ** {held} == {id} + {k};\n      \
             ensures Perm({given}, write) ** {given} == {given_id} + {k};\n    }}\n"
        );
    }
    text + "  }\n}\n"
}

fn seq_loop(loops: usize) -> String {
    let next = "a[(lid + 1) % gsize]";
    let mut text = format!(
        "kernel seqloop{loops}(int n) {{\n  local int[gsize] a;\n\n  requires 0 <= n;\n  requires Perm(a[lid], write);\n  \
         ensures Perm(a[lid], write);\n  void main() {{\n    int x := 0;\n"
    );
    for k in 0..loops {
        let _ = write!(
            text,
            "    int i{k} := 0;\n    loop_invariant 0 <= i{k} && i{k} <= n;\n    loop_invariant Perm(a[lid], write);\n    \
             while (i{k} < n) {{\n      a[lid] := lid + {k};\n      barrier(local) {{\n        requires Perm(a[lid], write) ** \
             a[lid] == lid + {k};\n        ensures Perm({next}, read) ** {next} == (lid + 1) % gsize + {k};\n      }}\n      \
             x := {next};\n      barrier(local) {{\n        requires Perm({next}, read);\n        ensures Perm(a[lid], \
             write);\n      }}\n      i{k} := i{k} + 1;\n    }}\n"
        );
    }
    text + "  }\n}\n"
}

fn arr_bar(arrays: usize) -> String {
    let names: Vec<String> = (0..arrays).map(|j| format!("a{j}")).collect();
    let next = |name: &str| format!("{name}[(lid + 1) % gsize]");
    // A clause per array: one `**` chain of them all would nest past the parser's bound.
    let clauses = |keyword: &str, indent: &str, clause: &dyn Fn(usize, &str) -> String| {
        names
            .iter()
            .enumerate()
            .map(|(j, name)| format!("{indent}{keyword} {};\n", clause(j, name)))
            .collect::<String>()
    };
    let mut text = format!(
        "kernel arrbar{arrays} {{\n  local int[gsize] {};\n\n{}{}  void main() {{\n",
        names.join(", "),
        clauses("requires", "  ", &|_, name| format!("Perm({name}[lid], write)")),
        clauses("ensures", "  ", &|_, name| format!("Perm({}, read)", next(name))),
    );
    for (j, name) in names.iter().enumerate() {
        let _ = writeln!(text, "    {name}[lid] := lid + {j};");
    }
    let _ = write!(
        text,
        "    barrier(local) {{\n{}{}    }}\n    int x := 0;\n",
        clauses("requires", "      ", &|j, name| format!("Perm({name}[lid], write) ** {name}[lid] == lid + {j}")),
        clauses("ensures", "      ", &|j, name| format!(
            "Perm({}, read) ** {} == (lid + 1) % gsize + {j}",
            next(name),
            next(name)
        )),
    );
    for name in &names {
        let _ = writeln!(text, "    x := x + {};", next(name));
    }
    text + "  }\n}\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_is_well_formed_at_several_sizes() {
        for family in Family::ALL {
            for size in [1, 2, 5, 300] {
                let text = family.kernel(size);
                let checked = crate::check_bytes(&format!("{}{size}.pvl", family.name()), text.into_bytes());
                assert!(!checked.has_errors(), "{} {size}: {:?}", family.name(), checked.diagnostics);
                let kernel = &checked.program.expect("a program").kernels[0];
                assert_eq!(kernel.name, format!("{}{size}", family.name()));
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for family in Family::ALL {
            assert_eq!(Family::named(family.name()), Some(family));
        }
        assert_eq!(Family::named("rings"), None);
    }
}
