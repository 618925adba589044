//! The global obligations (seed PO-1 to PO-8), which relate the threads of a group, the groups
//! of the kernel, and the levels' contracts:
//! - `group.resources`, `kernel.resources`: the thread contracts' permissions fit in what
//!   exists, every exact atom naming a location in one thread only (E8);
//! - `barrier.resources`: what a barrier hands out fits in what the group owns, and, where the
//!   barrier does not fence an array's memory, no location goes to a thread that another thread
//!   may have written since the last barrier that does (the fence rule, E12);
//! - `barrier.functional`: the barrier's postcondition follows from the thread's own barrier
//!   precondition and the other threads' conjuncts that read only fenced memory (or arrays no
//!   thread writes) (E7);
//! - `kernel.pre`, `group.pre`, `group.post`, `kernel.post`: the written levels' contracts imply
//!   one another, and are well defined (E11).
//!
//! A level that is not written is generated from the one below (seed section 5.4).

use super::checks::{Check, Place, Reads};
use super::Numbering;
use super::{Origin, Spec};
use crate::fences::{Assigned, Intervals, MemoryModel, Start};
use crate::resources::{normal_form, Conjunct, ConjunctKind};
use crate::{ArrayId, BarrierId, Clause, Expr, ExprKind, Function, Kernel, Memory, Obligation, ObligationId, VarKind};

/// A level of the hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Kernel,
    Group,
    Thread,
}

impl Level {
    /// The level in words: `kernel`, `group`, `thread`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Kernel => "kernel",
            Level::Group => "group",
            Level::Thread => "thread",
        }
    }
}

/// Which clauses of a level: its preconditions (read in the heap of the launch) or its
/// postconditions (in the heap at the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Pre,
    Post,
}

/// What an iterated formula ranges over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// The threads of one group, by `lid`.
    Group,
    /// The groups of the kernel, by `gid`.
    Kernel,
}

/// Who holds the permission atoms a [`Global::Fit`] adds up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holders {
    /// The threads of one group: `⊛ lid. T_res(gid, lid)`, or a barrier's `⊛ lid. B_res`.
    GroupThreads,
    /// The threads of the kernel, in all groups: `⊛ gid. ⊛ lid. T_res(gid, lid)`.
    KernelThreads,
    /// The groups of the kernel, by their written resources: `⊛ gid. G_res(gid)`.
    Groups,
    /// A level itself, once: its written resources, or what its `ensures` gives back.
    Level(Level),
}

/// How many holders of a [`Global::Fit`] name a location through one atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// At most one: `distinct` proves the atom injective across the holders.
    Once,
    /// Every thread of the group alike, `gsize` of them: the atom names no thread id and no
    /// private variable, and all threads see one heap where it is read.
    ByGroupThreads,
    /// Every thread of the kernel alike, `tcount` of them: nor does it name `gid`.
    ByAllThreads,
    /// Every group alike, `tcount / gsize` of them: a group atom that names no `gid`.
    ByAllGroups,
}

/// What the atoms of a [`Global::Fit`] must fit in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// All of every location.
    Whole,
    /// A level's written resources: `K_res`, or `G_res(gid)` of the group.
    Written(Level),
    /// What the threads of the group held at the launch, `⊛ lid. T_res(gid, lid)`: the group's
    /// global memory at a barrier where its resources are generated.
    Launch,
}

/// A global obligation, with the numbers of its obligations.
#[derive(Clone, Debug, PartialEq)]
pub enum Global {
    /// `barrier.functional`: each fact of the barrier's postcondition (`posts`) follows from the
    /// thread's own barrier precondition (`own`), the facts of its thread precondition that read no
    /// memory (`launch`), and, for every other thread of the group, the conjuncts of its barrier
    /// precondition that read only memory the barrier fences or arrays no thread writes
    /// (`others`).
    Functional {
        barrier: BarrierId,
        launch: Vec<Conjunct>,
        own: Vec<Conjunct>,
        others: Vec<Conjunct>,
        posts: Vec<(Conjunct, usize)>,
    },
    /// `kernel.pre`, `kernel.post`, `group.pre`, `group.post`: the facts of level `from` imply each
    /// fact of level `to` (`targets`), on one side. `serial` is the number of obligations up to
    /// and including these.
    Implication { id: ObligationId, from: Level, to: Level, side: Side, targets: Vec<(Conjunct, usize)>, serial: usize },
    /// A written kernel or group contract is well defined: each conjunct's checks, on its side.
    Defined { level: Level, parts: Vec<(Side, Conjunct, Vec<Check>)>, serial: usize },
    /// `group.resources`, `kernel.resources` (at the launch) or `barrier.resources` (at a barrier):
    /// the permission atoms on `array` of every holder fit in what the owner has (`fits`), each
    /// exact atom naming a location in one holder only (`distinct`, by atom; `None` where that
    /// needs no proof).
    Fit {
        id: ObligationId,
        array: ArrayId,
        holders: Holders,
        owner: Owner,
        barrier: Option<BarrierId>,
        atoms: Vec<Conjunct>,
        /// How many holders name a location through each atom.
        named: Vec<Named>,
        distinct: Vec<Option<usize>>,
        fits: usize,
    },
    /// The fence rule at a barrier that does not fence `array`'s memory: no atom it hands out
    /// (`receiving`, each with its obligation) names a location another thread of the group may
    /// have written (or, under OpenCL's rule, accessed where the receiver may write) in an interval
    /// the barrier leaves unordered. `earlier`: those intervals' starts, with the variables
    /// assigned since, and the atoms a thread held there.
    Handover {
        array: ArrayId,
        barrier: BarrierId,
        receiving: Vec<(Conjunct, usize)>,
        earlier: Vec<(Start, Assigned, Vec<Conjunct>)>,
        model: MemoryModel,
    },
}

/// A resource formula of the logic, for showing an obligation as an entailment.
#[derive(Clone, Debug, PartialEq)]
pub enum Formula {
    /// Conjuncts as written, of one arbitrary thread (or group, or the kernel).
    Conjuncts(Vec<Conjunct>),
    /// A level's part by name, such as `T_res(gid, lid)`.
    Named(&'static str),
    /// `⊛ lid ∈ group. F` (or `∀` for facts), or over the groups of the kernel by `gid`.
    Iterated {
        over: Threads,
        separating: bool,
        body: Box<Formula>,
    },
    Star(Vec<Formula>),
    /// All of every location of the array: `⊛ j. Perm(a[j], write)`.
    Whole(ArrayId),
    /// The locations of the array that another thread of the group may have written since the last
    /// barrier that fences its memory.
    Unfenced(ArrayId),
    Empty,
}

/// `premise ⊢ conclusion`: where the premise holds, so does the conclusion (for permissions: the
/// premise holds at least what the conclusion hands out).
#[derive(Clone, Debug, PartialEq)]
pub struct Entailment {
    pub premise: Formula,
    pub conclusion: Formula,
}

impl Global {
    /// The obligation as an entailment, in the seed's terms; `None` for the definedness of a
    /// written contract.
    pub fn entailment(&self, kernel: &Kernel) -> Option<Entailment> {
        let iterated = |over, separating, body| Formula::Iterated { over, separating, body: Box::new(body) };
        Some(match self {
            Global::Functional { own, others, launch, posts, .. } => Entailment {
                premise: Formula::Star(vec![
                    Formula::Conjuncts(launch.clone()),
                    Formula::Conjuncts(own.clone()),
                    iterated(Threads::Group, false, Formula::Conjuncts(others.clone())),
                ]),
                conclusion: Formula::Conjuncts(posts.iter().map(|(conjunct, _)| conjunct.clone()).collect()),
            },
            Global::Implication { from, to, side, targets, .. } => {
                let (from, to) = (level_formula(kernel, *from, *side), level_formula(kernel, *to, *side));
                let targets = Formula::Conjuncts(targets.iter().map(|(conjunct, _)| conjunct.clone()).collect());
                let conclusion = if matches!(to, Formula::Conjuncts(_)) { targets } else { to };
                Entailment { premise: from, conclusion }
            }
            Global::Defined { .. } => return None,
            Global::Fit { array, holders, owner, atoms, .. } => {
                let atoms = Formula::Conjuncts(atoms.clone());
                let conclusion = match holders {
                    Holders::GroupThreads => iterated(Threads::Group, true, atoms),
                    Holders::KernelThreads => iterated(Threads::Kernel, true, iterated(Threads::Group, true, atoms)),
                    Holders::Groups => iterated(Threads::Kernel, true, atoms),
                    Holders::Level(_) => atoms,
                };
                let premise = match owner {
                    Owner::Whole => Formula::Whole(*array),
                    Owner::Written(Level::Kernel) => Formula::Named("K_res"),
                    Owner::Written(_) => Formula::Named("G_res(gid)"),
                    Owner::Launch => iterated(Threads::Group, true, Formula::Named("T_res(gid, lid)")),
                };
                Entailment { premise, conclusion }
            }
            Global::Handover { array, receiving, .. } => Entailment {
                premise: Formula::Whole(*array),
                conclusion: Formula::Star(vec![
                    iterated(
                        Threads::Group,
                        true,
                        Formula::Conjuncts(receiving.iter().map(|(conjunct, _)| conjunct.clone()).collect()),
                    ),
                    Formula::Unfenced(*array),
                ]),
            },
        })
    }

    /// The numbers of the obligations it holds, in order.
    pub fn obligations(&self) -> Vec<usize> {
        match self {
            Global::Functional { posts: numbered, .. }
            | Global::Implication { targets: numbered, .. }
            | Global::Handover { receiving: numbered, .. } => numbered.iter().map(|(_, number)| *number).collect(),
            Global::Defined { parts, .. } => {
                parts.iter().flat_map(|(_, _, checks)| checks.iter().map(|check| check.obligation)).collect()
            }
            Global::Fit { distinct, fits, .. } => distinct.iter().flatten().copied().chain([*fits]).collect(),
        }
    }
}

/// A level's clauses on one side, as a formula: written, or generated from the level below.
fn level_formula(kernel: &Kernel, level: Level, side: Side) -> Formula {
    match (clauses(kernel, level, side), level) {
        (Some(clauses), _) => Formula::Conjuncts(facts(clauses)),
        (None, Level::Group) => Formula::Iterated {
            over: Threads::Group,
            separating: false,
            body: Box::new(level_formula(kernel, Level::Thread, side)),
        },
        (None, _) => Formula::Iterated {
            over: Threads::Kernel,
            separating: false,
            body: Box::new(level_formula(kernel, Level::Group, side)),
        },
    }
}

/// A level's specification: written, or generated from the thread contract (seed section 5.4).
pub fn spec(kernel: &Kernel, level: Level) -> Spec {
    let written = match level {
        Level::Kernel => kernel.kernel_contract.is_some(),
        Level::Group => kernel.group_contract.is_some(),
        Level::Thread => true,
    };
    let below = |name| match level {
        Level::Kernel => {
            Formula::Iterated { over: Threads::Kernel, separating: true, body: Box::new(Formula::Named(name)) }
        }
        _ => Formula::Iterated { over: Threads::Group, separating: true, body: Box::new(Formula::Named(name)) },
    };
    let names = match level {
        Level::Kernel => ["G_res(gid)", "G_pre(gid)", "G_post(gid)"],
        _ => ["T_res(gid, lid)", "T_pre(gid, lid)", "T_post(gid, lid)"],
    };
    if written {
        let resources = match clauses(kernel, level, Side::Pre) {
            Some(clauses) if resources_written(kernel, level) => Formula::Conjuncts(
                conjuncts(clauses).filter(|conjunct| matches!(conjunct.kind, ConjunctKind::Perm { .. })).collect(),
            ),
            _ => below(names[0]),
        };
        Spec {
            origin: Origin::Written,
            resources,
            pre: level_formula(kernel, level, Side::Pre),
            post: level_formula(kernel, level, Side::Post),
        }
    } else {
        let as_facts = |formula: Formula| match formula {
            Formula::Iterated { over, body, .. } => Formula::Iterated { over, separating: false, body },
            other => other,
        };
        Spec {
            origin: Origin::Generated,
            resources: below(names[0]),
            pre: as_facts(below(names[1])),
            post: as_facts(below(names[2])),
        }
    }
}

/// Every global obligation of a kernel, numbered in order: the barriers' functional
/// obligations, the levels', then the resources'.
pub fn obligations(
    kernel: &Kernel,
    functions: &[Function],
    model: MemoryModel,
    numbering: &mut Numbering,
) -> Vec<Global> {
    let mut globals = Vec::new();
    for index in 0..kernel.barriers.len() {
        globals.extend(functional(kernel, BarrierId(index as u32), numbering));
    }
    globals.extend(levels(kernel, functions, numbering));
    globals.extend(resources(kernel, model, numbering));
    globals
}

fn functional(kernel: &Kernel, id: BarrierId, numbering: &mut Numbering) -> Option<Global> {
    let barrier = kernel.barrier(id);
    let posts: Vec<Conjunct> = conjuncts(&barrier.contract.ensures)
        .filter(|conjunct| matches!(conjunct.kind, ConjunctKind::Fact(_)))
        .collect();
    if posts.is_empty() {
        return None;
    }
    // An array no thread writes needs no fence: every thread sees its launch contents (E7).
    let fenced = |array: ArrayId| barrier.fences.fences(kernel.array(array).memory) || !kernel.writes(array);
    let launch =
        conjuncts(&kernel.thread_contract.requires).filter(|conjunct| reads_only(conjunct, |_| false)).collect();
    let own = conjuncts(&barrier.contract.requires).filter(|conjunct| reads_only(conjunct, |_| true)).collect();
    let others = conjuncts(&barrier.contract.requires).filter(|conjunct| reads_only(conjunct, fenced)).collect();
    let note = if barrier.fences.local || barrier.fences.global {
        "the preconditions of other threads count only where they read memory this barrier fences (or arrays no thread writes)"
    } else {
        "this barrier fences no memory: only the thread's own precondition counts"
    };
    let posts = posts
        .into_iter()
        .filter(|conjunct| reads_only(conjunct, |_| true))
        .map(|conjunct| {
            let number = numbering.add_related(
                ObligationId::BarrierFunctional,
                conjunct.span,
                "this barrier postcondition might not follow from the barrier's preconditions".into(),
                barrier.span,
                note.into(),
            );
            (conjunct, number)
        })
        .collect();
    Some(Global::Functional { barrier: id, launch, own, others, posts })
}

/// The level obligations the written contracts call for (E11).
fn levels(kernel: &Kernel, functions: &[Function], numbering: &mut Numbering) -> Vec<Global> {
    let written_kernel = kernel.kernel_contract.is_some();
    let written_group = kernel.group_contract.is_some();
    let mut globals = Vec::new();
    let mut implication = |from: Level, to: Level, side: Side, id: ObligationId, numbering: &mut Numbering| {
        let what = match (to, side) {
            (Level::Kernel, Side::Post) => "this kernel postcondition might not follow from the group postconditions",
            (Level::Group, Side::Post) => "this group postcondition might not follow from the thread postconditions",
            (Level::Group, Side::Pre) => "this group precondition might not follow from the kernel precondition",
            (Level::Thread, Side::Pre) if from == Level::Kernel => {
                "this thread precondition might not follow from the kernel precondition"
            }
            _ => "this thread precondition might not follow from the group precondition",
        };
        let targets = facts(clauses(kernel, to, side).unwrap_or(&[]))
            .into_iter()
            .map(|conjunct| {
                let number = numbering.add(id, conjunct.span, what.into());
                (conjunct, number)
            })
            .collect();
        globals.push(Global::Implication { id, from, to, side, targets, serial: numbering.len() });
    };
    if written_kernel {
        // K_pre ⇒ G_pre for every group, where G_pre reaches down to the threads if generated.
        let below = if written_group { Level::Group } else { Level::Thread };
        implication(Level::Kernel, below, Side::Pre, ObligationId::KernelPre, numbering);
        implication(below, Level::Kernel, Side::Post, ObligationId::KernelPost, numbering);
    }
    if written_group {
        implication(Level::Group, Level::Thread, Side::Pre, ObligationId::GroupPre, numbering);
        implication(Level::Thread, Level::Group, Side::Post, ObligationId::GroupPost, numbering);
    }
    for (level, written) in [(Level::Kernel, written_kernel), (Level::Group, written_group)] {
        if written {
            // No thread runs when the levels are compared, so nothing races: a level's contract
            // needs permission only to be framed by the resources it writes (`frame`, E15).
            let reads =
                if resources_written(kernel, level) { Reads::Framed(ObligationId::Frame) } else { Reads::Bounds };
            let place = Place { kernel, functions, reads, termination: None };
            let mut parts = Vec::new();
            for side in [Side::Pre, Side::Post] {
                // Permissions too: their indices and amounts must be defined.
                for conjunct in conjuncts(clauses(kernel, level, side).unwrap_or(&[])) {
                    let mut checks = Vec::new();
                    place.conjunct_checks(&conjunct, numbering, &mut checks);
                    parts.push((side, conjunct, checks));
                }
            }
            globals.push(Global::Defined { level, parts, serial: numbering.len() });
        }
    }
    globals
}

/// `group.resources`, `kernel.resources` and `barrier.resources` for every array, the last with
/// the fence rule at every barrier that does not fence the array's memory (E8, E12, E15).
///
/// Each level's resources fit in the level above: the threads' in the group's (all of its local
/// memory, and `G_res(gid)` of global memory where written, else whatever the threads claim fits
/// in all of it), the groups' in the kernel's (`K_res` where written, else all of memory), and a
/// written `K_res` in all of memory. A written level gives back in its `ensures` only what its
/// resources hold. Across the kernel, the threads are compared directly where `G_res` is
/// generated, since then it is their sum.
fn resources(kernel: &Kernel, model: MemoryModel, numbering: &mut Numbering) -> Vec<Global> {
    let intervals = Intervals::of(kernel);
    let kernel_written = resources_written(kernel, Level::Kernel);
    let group_written = resources_written(kernel, Level::Group);
    let over_kernel = if kernel_written { Owner::Written(Level::Kernel) } else { Owner::Whole };
    let mut globals = Vec::new();
    for array in (0..kernel.arrays.len()).map(|index| ArrayId(index as u32)) {
        let global = kernel.array(array).memory == Memory::Global;
        let fit = |atoms: Vec<Conjunct>, holders, owner, barrier, numbering: &mut Numbering| {
            (!atoms.is_empty()).then(|| self::fit(kernel, array, atoms, holders, owner, barrier, numbering))
        };
        let on_array = atoms(&kernel.thread_contract.requires, array);
        let over_group = if global && group_written { Owner::Written(Level::Group) } else { Owner::Whole };
        // An atom every thread of the kernel names alike is counted across the kernel, with the
        // groups' other atoms (`kernel.resources` then compares threads of one group too).
        let in_group = on_array
            .iter()
            .filter(|atom| {
                group_written || !global || named(kernel, atom, Holders::KernelThreads) != Named::ByAllThreads
            })
            .cloned()
            .collect();
        globals.extend(fit(in_group, Holders::GroupThreads, over_group, None, numbering));
        if global && !group_written {
            globals.extend(fit(on_array, Holders::KernelThreads, over_kernel, None, numbering));
        }
        if global && group_written {
            let given = level_atoms(kernel, Level::Group, Side::Pre, array);
            globals.extend(fit(given, Holders::Groups, over_kernel, None, numbering));
        }
        if kernel_written {
            let given = level_atoms(kernel, Level::Kernel, Side::Pre, array);
            globals.extend(fit(given, Holders::Level(Level::Kernel), Owner::Whole, None, numbering));
        }
        for level in [Level::Kernel, Level::Group] {
            let returned = level_atoms(kernel, level, Side::Post, array);
            globals.extend(fit(returned, Holders::Level(level), Owner::Written(level), None, numbering));
        }
        for (index, barrier) in kernel.barriers.iter().enumerate() {
            let id = BarrierId(index as u32);
            let on_array = atoms(&barrier.contract.ensures, array);
            let owner = match (global, group_written) {
                (false, _) => Owner::Whole,
                (true, true) => Owner::Written(Level::Group),
                (true, false) => Owner::Launch,
            };
            globals.extend(fit(on_array.clone(), Holders::GroupThreads, owner, Some(id), numbering));
            if !barrier.fences.fences(kernel.array(array).memory) {
                globals.extend(handover(kernel, array, on_array, id, &intervals, model, numbering));
            }
        }
    }
    globals
}

/// Whether a level's resources are written: its `requires` names a permission. A level whose
/// `requires` names none has the resources generated from the level below (seed section 5.4).
pub fn resources_written(kernel: &Kernel, level: Level) -> bool {
    clauses(kernel, level, Side::Pre)
        .is_some_and(|clauses| conjuncts(clauses).any(|conjunct| matches!(conjunct.kind, ConjunctKind::Perm { .. })))
}

/// The permission atoms on `array` of a written level's clauses on one side.
pub fn level_atoms(kernel: &Kernel, level: Level, side: Side, array: ArrayId) -> Vec<Conjunct> {
    clauses(kernel, level, side).map(|clauses| atoms(clauses, array)).unwrap_or_default()
}

fn fit(
    kernel: &Kernel,
    array: ArrayId,
    atoms: Vec<Conjunct>,
    holders: Holders,
    owner: Owner,
    barrier: Option<BarrierId>,
    numbering: &mut Numbering,
) -> Global {
    let name = &kernel.array(array).name;
    let id = match (barrier, holders) {
        (Some(_), _) => ObligationId::BarrierResources,
        (None, Holders::GroupThreads | Holders::Level(Level::Group)) => ObligationId::GroupResources,
        (None, _) => ObligationId::KernelResources,
    };
    let which = match (holders, barrier) {
        (_, Some(_)) => "this barrier permission might name the same location of `{name}` in two threads",
        (Holders::GroupThreads, None) => "this permission might name the same location of `{name}` in two threads",
        (Holders::KernelThreads, None) => {
            "this permission might name the same location of `{name}` in threads of two different groups"
        }
        (Holders::Groups, None) => "this group permission might name the same location of `{name}` in two groups",
        (Holders::Level(_), None) => {
            "this permission might name the same location of `{name}` for two values of its bound variables"
        }
    }
    .replace("{name}", name);
    // Every exact atom must be injective across holders: the sum counts it once per holder that
    // can name a location. An atom all holders name alike, and a level's own atom, is held once
    // per holder, so there only a `\forall*` can name a location twice.
    let named: Vec<Named> = atoms.iter().map(|atom| self::named(kernel, atom, holders)).collect();
    let distinct = atoms
        .iter()
        .zip(&named)
        .map(|(atom, named)| {
            let exact = matches!(&atom.kind, ConjunctKind::Perm { amount, .. } if amount.is_exact());
            // Across the kernel, an atom all threads of a group name alike must still name a
            // location in one group at most.
            let across_groups = holders == Holders::KernelThreads && *named == Named::ByGroupThreads;
            let once = (*named == Named::Once || across_groups) && !matches!(holders, Holders::Level(_));
            let which = if once {
                which.clone()
            } else {
                format!(
                    "this permission might name the same location of `{name}` for two values of its bound variables"
                )
            };
            (exact && (once || !atom.binders.is_empty())).then(|| numbering.add(id, atom.span, which))
        })
        .collect();
    let message = match (barrier, holders, owner) {
        (Some(_), _, Owner::Written(_)) => {
            format!("the barrier might hand out more of `{name}` than the group's resources give")
        }
        (Some(_), _, _) => format!("the barrier might hand out more of `{name}` than the group owns"),
        (None, Holders::GroupThreads, Owner::Written(_)) => {
            format!("the threads of a group might together hold more of a location of `{name}` than the group's resources give")
        }
        (None, Holders::GroupThreads, _) => {
            format!("the threads of a group might together hold more than all of a location of `{name}`")
        }
        (None, Holders::KernelThreads, Owner::Written(_)) => {
            format!("the threads might together hold more of a location of `{name}` than the kernel's resources give")
        }
        // An atom every thread names alike is counted over all threads of the kernel, in one group too.
        (None, Holders::KernelThreads, _) if named.contains(&Named::ByAllThreads) => {
            format!("the threads of the kernel might together hold more than all of a location of `{name}`")
        }
        (None, Holders::KernelThreads, _) => {
            format!("threads of different groups might together hold more than all of a location of `{name}`")
        }
        (None, Holders::Groups, Owner::Written(_)) => {
            format!("the groups might together hold more of a location of `{name}` than the kernel's resources give")
        }
        (None, Holders::Groups, _) => {
            format!("the groups might together hold more than all of a location of `{name}`")
        }
        (None, Holders::Level(level), Owner::Written(_)) => format!(
            "the {} postcondition might give back more of `{name}` than the {}'s resources hold",
            level.name(),
            level.name()
        ),
        (None, Holders::Level(level), _) => {
            format!("the {}'s resources might hold more than all of a location of `{name}`", level.name())
        }
    };
    let span = atoms[0].span;
    let related = match (barrier, owner) {
        (Some(barrier), _) => Some((kernel.barrier(barrier).span, "at this barrier".to_string())),
        (None, Owner::Written(level)) => Some(match level_atoms(kernel, level, Side::Pre, array).first() {
            Some(given) => (given.span, format!("what the {}'s resources give of `{name}`", level.name())),
            None => {
                let clauses = clauses(kernel, level, Side::Pre).unwrap_or(&[]);
                let span = clauses.first().map_or(span, |clause| clause.span);
                (span, format!("the {}'s resources give nothing of `{name}`", level.name()))
            }
        }),
        (None, _) => None,
    };
    let fits = match related {
        Some((related, note)) => numbering.add_related(id, span, message, related, note),
        None => numbering.add(id, span, message),
    };
    Global::Fit { id, array, holders, owner, barrier, atoms, named, distinct, fits }
}

/// How many holders name a location through an atom: the threads (of a group, of the kernel)
/// alike where it names no thread id or private variable (nor `gid` across the kernel), the
/// groups alike where a group atom names no `gid`, else at most one.
pub fn named(kernel: &Kernel, atom: &Conjunct, holders: Holders) -> Named {
    let ConjunctKind::Perm { index, .. } = &atom.kind else { return Named::Once };
    let mentions = |test: &dyn Fn(&Expr) -> bool| {
        atom.binders.iter().map(|binder| &binder.range).chain(&atom.guards).chain([index]).any(|expr| expr.any(test))
    };
    // An increment's value is the thread's own, and (in local memory) its group's.
    let thread = |expr: &Expr| match &expr.kind {
        ExprKind::Builtin(builtin) => builtin.is_thread_specific(),
        ExprKind::Var(var) => kernel.var(*var).kind == VarKind::Private,
        ExprKind::Ticket { .. } => true,
        _ => false,
    };
    let group = |expr: &Expr| match &expr.kind {
        ExprKind::Builtin(builtin) => builtin.is_group_specific(),
        ExprKind::Ticket { .. } => true,
        _ => false,
    };
    match holders {
        Holders::GroupThreads if !mentions(&thread) => Named::ByGroupThreads,
        Holders::KernelThreads if !mentions(&thread) && !mentions(&group) => Named::ByAllThreads,
        Holders::KernelThreads if !mentions(&thread) => Named::ByGroupThreads,
        Holders::Groups if !mentions(&group) => Named::ByAllGroups,
        _ => Named::Once,
    }
}

/// The fence rule (E12) at a barrier that does not fence `array`'s memory.
fn handover(
    kernel: &Kernel,
    array: ArrayId,
    receiving: Vec<Conjunct>,
    barrier: BarrierId,
    intervals: &Intervals,
    model: MemoryModel,
    numbering: &mut Numbering,
) -> Option<Global> {
    let memory = kernel.array(array).memory;
    // Only exact amounts add up to write permission; under OpenCL's rule any access counts.
    let relevant = |atom: &Conjunct| {
        model == MemoryModel::OpenCl || matches!(&atom.kind, ConjunctKind::Perm { amount, .. } if amount.is_exact())
    };
    let earlier: Vec<(Start, Assigned, Vec<Conjunct>)> = intervals
        .unordered(kernel, barrier, memory)
        .into_iter()
        .map(|(start, assigned)| {
            let clauses = match start {
                Start::Launch => &kernel.thread_contract.requires,
                Start::Barrier(earlier) => &kernel.barrier(earlier).contract.ensures,
            };
            let on_array: Vec<Conjunct> = atoms(clauses, array).into_iter().filter(relevant).collect();
            (start, assigned, on_array)
        })
        .filter(|(_, _, atoms)| !atoms.is_empty())
        .collect();
    if receiving.is_empty() || earlier.is_empty() {
        return None;
    }
    let name = &kernel.array(array).name;
    let memory = match memory {
        Memory::Local => "local",
        Memory::Global => "global",
    };
    let accessed = match model {
        MemoryModel::Seed => "written it",
        MemoryModel::OpenCl => "written it (or read it, and the receiving thread may write it)",
    };
    let receiving = receiving
        .into_iter()
        .map(|atom| {
            let number = numbering.push(Obligation {
                id: ObligationId::BarrierResources,
                span: atom.span,
                related: Some((kernel.barrier(barrier).span, format!("this barrier does not fence {memory} memory"))),
                message: format!(
                    "this barrier might hand a location of `{name}` to a thread although another thread may have {accessed} since the last barrier that fences {memory} memory"
                ),
                help: Some(format!(
                    "a barrier orders a write with another thread's later access only if it fences the memory: add `{memory}` to this barrier's fences (`barrier({memory})`, or `barrier({{local, global}})` for both), or leave the location with the thread that wrote it"
                )),
            });
            (atom, number)
        })
        .collect();
    Some(Global::Handover { array, barrier, receiving, earlier, model })
}

/// The clauses of a level on one side; `None` for a level that is not written.
pub fn clauses(kernel: &Kernel, level: Level, side: Side) -> Option<&[Clause]> {
    let contract = match level {
        Level::Kernel => kernel.kernel_contract.as_ref(),
        Level::Group => kernel.group_contract.as_ref(),
        Level::Thread => Some(&kernel.thread_contract),
    }?;
    Some(match side {
        Side::Pre => &contract.requires,
        Side::Post => &contract.ensures,
    })
}

fn conjuncts(clauses: &[Clause]) -> impl Iterator<Item = Conjunct> + '_ {
    clauses.iter().flat_map(|clause| normal_form(&clause.assertion))
}

/// The fact conjuncts of clauses.
fn facts(clauses: &[Clause]) -> Vec<Conjunct> {
    conjuncts(clauses).filter(|conjunct| matches!(conjunct.kind, ConjunctKind::Fact(_))).collect()
}

/// The permission atoms of clauses on one array.
fn atoms(clauses: &[Clause], array: ArrayId) -> Vec<Conjunct> {
    conjuncts(clauses)
        .filter(|conjunct| matches!(conjunct.kind, ConjunctKind::Perm { array: on, .. } if on == array))
        .collect()
}

/// Whether a conjunct is a fact whose ranges, guards and body read only arrays `allowed` admits
/// (E7). A read under `\old` reads the memory of the launch, which every thread sees alike and
/// no thread writes: it is always admitted.
fn reads_only(conjunct: &Conjunct, allowed: impl Fn(ArrayId) -> bool) -> bool {
    let ConjunctKind::Fact(fact) = &conjunct.kind else { return false };
    let admitted = |expr: &Expr| {
        let mut work = vec![expr];
        while let Some(next) = work.pop() {
            match &next.kind {
                ExprKind::Read { array, .. } if !allowed(*array) => return false,
                // Everything under `\old`, indices included, reads the launch memory.
                ExprKind::Old(_) => continue,
                _ => {}
            }
            next.children(&mut work);
        }
        true
    };
    conjunct.binders.iter().map(|binder| &binder.range).chain(&conjunct.guards).all(admitted) && admitted(fact)
}
