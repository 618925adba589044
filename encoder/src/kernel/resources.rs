//! The resource obligations (PO-1 to PO-3): the permissions each level holds fit in what the
//! level above owns (all of memory, a written `K_res` or `G_res`, or what the group's threads held
//! at the launch), at the start and at every barrier. These are what rule out data races
//! (`proofs/kernel.md`, E8, E15).
//!
//! Each is a procedure over one fresh location `j` of one array. Every permission atom that may
//! name `j` gets its own *instance*: a fresh holder (a thread of the group or of the kernel, a
//! group, or the level itself), with the launch facts and its precondition's facts about it. The
//! check is that the exact amounts of the instances that name `j` add up to at most what is
//! owned, and that a `read` (any positive amount) finds something left. The solver chooses the
//! instances, so one query covers every combination of holders; no quantifier is on the path to a
//! counterexample. An exact atom must also be injective across holders (two never name one
//! location through it), which its own assertion checks, since the sum counts each atom once.

use super::conjunct;
use super::expr::{self, Context};
use super::facts;
use super::inverse::{pinned_thread, symbolic_inverse};
use super::names;
use super::state::{conjunction, group_block, ivl_type, thread_id, Encoder};
use crate::ivl::{self, BinaryOp, Binding, Declaration, Expr, Procedure, Stmt, StmtKind, Type};
use lockstep_logic::fences::{Assigned, MemoryModel, Start};
use lockstep_logic::lockstep::LockStep;
use lockstep_logic::outline::{self, Global, Holders, Level, Named, Owner, Side, Threads};
use lockstep_logic::resources::{normal_form, Conjunct, ConjunctKind};
use lockstep_logic::{self as logic, Amount, ArrayId, BarrierId, VarId, VarKind};
use num_bigint::BigInt;
use num_rational::BigRational;

/// The location a resource check is about.
pub(super) const LOCATION: &str = "location";

/// A permission atom of a contract, in normal form.
struct Atom {
    conjunct: Conjunct,
}

impl Atom {
    fn parts(&self) -> (ArrayId, &logic::Expr, &Amount) {
        match &self.conjunct.kind {
            ConjunctKind::Perm { array, index, amount } => (*array, index, amount),
            ConjunctKind::Fact(_) => unreachable!("atoms are built from permission conjuncts only"),
        }
    }

    fn array(&self) -> ArrayId {
        self.parts().0
    }

    fn index(&self) -> &logic::Expr {
        self.parts().1
    }

    fn amount(&self) -> &Amount {
        self.parts().2
    }
}

/// The procedure being built.
struct Builder {
    locals: Vec<Binding>,
    stmts: Vec<Stmt>,
    instances: usize,
    /// The group ids of the instances drawn from the whole kernel.
    groups: Vec<Expr>,
}

impl Builder {
    fn assume(&mut self, expr: Expr) {
        self.stmts.push(Stmt::new(StmtKind::Assume(expr)));
    }

    fn fresh(&mut self, name: &str, ty: Type) -> Expr {
        let name = format!("{name}_{}", self.locals.len());
        self.locals.push(Binding::new(&name, ty));
        Expr::var(name)
    }
}

/// One thread chosen by the solver: its ids, the values of the atom's `\forall*` variables (with
/// their ranges), and the context its expressions are read in.
struct Instance<'k> {
    context: Context<'k>,
    lid: Expr,
    gid: Expr,
    bound: Vec<(Expr, Expr)>,
}

impl Instance<'_> {
    /// The atom's guard in this thread (its `\forall*` ranges first) and its index. The ranges
    /// are part of the guard, never assumed: an empty range would make the whole check vacuous.
    fn at(&self, atom: &Atom) -> (Expr, Expr) {
        let (guard, index) = atom_at(&self.context, atom);
        let guard =
            self.bound.iter().rev().fold(guard, |guard, (_, range)| Expr::binary(BinaryOp::And, range.clone(), guard));
        (guard, index)
    }
}

/// Where an instance's thread is when its atoms are read.
#[derive(Clone, Copy)]
enum Point<'a> {
    /// At the launch: the thread contract's atoms, in the launch heap.
    Launch,
    /// Arriving at a barrier: its precondition holds in the heap there.
    Barrier(usize),
    /// Opening a barrier interval that ends, maybe after further barriers, at the barrier being
    /// checked: the heap there is unknown, and a lock-step-safe variable keeps the value it has at
    /// that barrier only if no path between assigns it.
    Earlier(Start, &'a Assigned),
}

impl<'k> Encoder<'k> {
    /// The procedure of a resource obligation of the outline: `group.resources`,
    /// `kernel.resources` or `barrier.resources`, or the fence rule at a barrier.
    pub(super) fn resource_procedure(&mut self, global: &Global, lockstep: &LockStep) -> Procedure {
        match global {
            Global::Fit { .. } => self.fit(global, lockstep),
            Global::Handover { array, barrier, receiving, earlier, model } => {
                self.handover(*array, receiving, barrier.index(), earlier, *model, lockstep)
            }
            _ => unreachable!("a resource obligation"),
        }
    }

    /// The procedure of a [`Global::Fit`]: the atoms (of the thread contract, a barrier's ensures,
    /// or a written level's clauses) fit in what their owner has of the array (E8, E15).
    fn fit(&mut self, global: &Global, lockstep: &LockStep) -> Procedure {
        let Global::Fit { array, holders, owner, barrier, atoms, named, distinct, fits: fits_number, .. } = global
        else {
            unreachable!("a fit obligation")
        };
        let (array, holders, owner, barrier) = (*array, *holders, *owner, barrier.map(BarrierId::index));
        let atoms: Vec<Atom> = atoms.iter().map(|conjunct| Atom { conjunct: conjunct.clone() }).collect();
        let kernel = self.kernel;
        let name = &kernel.array(array).name;
        let mut builder = self.builder(lockstep);
        let location = Expr::var(LOCATION);
        let mut instances = Vec::new();
        let point = barrier.map_or(Point::Launch, Point::Barrier);
        for atom in &atoms {
            let mut instance = self.holder(holders, point, lockstep, &mut builder);
            bind(&mut instance, atom, &mut builder);
            instances.push((atom, instance));
        }
        // Injectivity of every exact atom across two different holders.
        for (((atom, first), number), named) in instances.iter().zip(distinct).zip(named) {
            let Some(number) = number else { continue };
            let mut second = self.holder(holders, point, lockstep, &mut builder);
            bind(&mut second, atom, &mut builder);
            // Two instances differ in holder, or (inside one holder) in a `\forall*` variable.
            let other_value = first
                .bound
                .iter()
                .zip(&second.bound)
                .map(|((first, _), (second, _))| Expr::binary(BinaryOp::Ne, first.clone(), second.clone()))
                .reduce(|left, right| Expr::binary(BinaryOp::Or, left, right))
                .unwrap_or(Expr::Bool(false));
            let differ = |first: &Expr, second: &Expr| Expr::binary(BinaryOp::Ne, first.clone(), second.clone());
            let distinct = match holders {
                // Inside one group, `group.resources` compares the threads and the values.
                Holders::KernelThreads if *named != Named::ByAllThreads => differ(&first.gid, &second.gid),
                // Every holder names the same locations through it: only the values can differ.
                _ if *named != Named::Once => other_value,
                Holders::GroupThreads => Expr::binary(BinaryOp::Or, differ(&first.lid, &second.lid), other_value),
                Holders::Groups => Expr::binary(BinaryOp::Or, differ(&first.gid, &second.gid), other_value),
                Holders::KernelThreads | Holders::Level(_) => other_value,
            };
            let (first_guard, first_index) = first.at(atom);
            let (second_guard, second_index) = second.at(atom);
            let clash = conjunction([distinct, first_guard, second_guard]);
            let both = match holders {
                Holders::GroupThreads | Holders::KernelThreads => "both threads name",
                Holders::Groups => "both groups name",
                Holders::Level(_) => "both values name",
            };
            let shown = vec![(format!("index of `{name}` {both}"), first_index.clone())];
            self.shown.insert(Self::tag(*number), shown);
            let injective =
                Expr::binary(BinaryOp::Implies, clash, Expr::binary(BinaryOp::Ne, first_index, second_index));
            self.prove(&mut builder.stmts, *number, injective);
        }
        // What the instances hold at `j`.
        let mut held = Holdings::default();
        for ((atom, instance), named) in instances.iter().zip(named) {
            let (guard, index) = instance.at(atom);
            let names_j = Expr::binary(BinaryOp::And, guard, Expr::binary(BinaryOp::Eq, index, location.clone()));
            let term = self.counted(*named, atom.amount(), &instance.context, &mut builder);
            held.add(term, names_j);
        }
        let owned = match owner {
            Owner::Whole => Holdings { exact: real_literal(1), read: Expr::Bool(false) },
            Owner::Launch => self.owned(array, &location, &mut builder),
            Owner::Written(level) => self.written(level, array, &location),
        };
        let fits = Expr::binary(
            BinaryOp::And,
            Expr::binary(BinaryOp::Le, held.exact.clone(), owned.exact.clone()),
            Expr::binary(
                BinaryOp::Implies,
                held.read,
                Expr::binary(BinaryOp::Or, Expr::binary(BinaryOp::Lt, held.exact.clone(), owned.exact), owned.read),
            ),
        );
        // What the threads held at the launch may add up to more than all of a location, which
        // `group.resources` reports; a barrier still hands out no more than all of it.
        let fits = match owner {
            Owner::Launch => Expr::binary(BinaryOp::And, Expr::binary(BinaryOp::Le, held.exact, real_literal(1)), fits),
            _ => fits,
        };
        // Across the kernel, in all of memory, conflicts inside one group are `group.resources`:
        // here the instances are not all of one group. Against a written `K_res`, or with an atom
        // every thread names alike (which `group.resources` leaves out), every thread counts.
        let fits =
            if holders == Holders::KernelThreads && owner == Owner::Whole && !named.contains(&Named::ByAllThreads) {
                let differ = instances
                    .iter()
                    .flat_map(|(_, first)| {
                        instances
                            .iter()
                            .map(move |(_, second)| Expr::binary(BinaryOp::Ne, first.gid.clone(), second.gid.clone()))
                    })
                    .reduce(|left, right| Expr::binary(BinaryOp::Or, left, right))
                    .unwrap_or(Expr::Bool(false));
                Expr::binary(BinaryOp::Implies, differ, fits)
            } else {
                fits
            };
        self.prove(&mut builder.stmts, *fits_number, fits);
        let suffix = match (barrier, holders, owner) {
            (Some(index), _, _) => format!("barrier_{index}"),
            (None, Holders::GroupThreads, _) => "group".to_string(),
            (None, Holders::KernelThreads, _) => "kernel".to_string(),
            (None, Holders::Groups, _) => "groups".to_string(),
            (None, Holders::Level(level), Owner::Written(_)) => format!("{}_returned", level.name()),
            (None, Holders::Level(level), _) => format!("{}_written", level.name()),
        };
        let facts = vec![expr::in_bounds(&Expr::var(names::GID), expr::groups())];
        let name = format!("resources_{suffix}_{}", kernel.array(array).name);
        self.procedure(name, &[names::GID], facts, true, builder.locals, builder.stmts)
    }

    /// A fresh holder of permission atoms: a thread of the group or of the kernel, a group of the
    /// kernel, or the level itself.
    fn holder(&mut self, holders: Holders, point: Point, lockstep: &LockStep, builder: &mut Builder) -> Instance<'k> {
        match holders {
            Holders::GroupThreads => self.instance(Threads::Group, point, lockstep, builder),
            Holders::KernelThreads => self.instance(Threads::Kernel, point, lockstep, builder),
            Holders::Groups => {
                let gid = builder.fresh("gid", Type::Int);
                disjoint_group(&gid, builder);
                self.level_instance(Level::Group, gid, builder)
            }
            Holders::Level(level) => self.level_instance(level, Expr::var(names::GID), builder),
        }
    }

    /// A level as a holder, for group `gid`: its written preconditions' facts that read no
    /// memory hold.
    fn level_instance(&mut self, level: Level, gid: Expr, builder: &mut Builder) -> Instance<'k> {
        let unknown = Expr::var(names::UNKNOWN);
        let gid = if level == Level::Kernel { unknown.clone() } else { gid };
        let context = self.launch_context(gid.clone());
        let levels: &[Level] = if level == Level::Kernel { &[Level::Kernel] } else { &[Level::Kernel, Level::Group] };
        for &above in levels {
            for conjunct in outline::clauses(self.kernel, above, Side::Pre)
                .unwrap_or(&[])
                .iter()
                .flat_map(|clause| normal_form(&clause.assertion))
            {
                if let Some(fact) = facts::fact_without_old(&context, &conjunct) {
                    builder.assume(fact);
                }
            }
        }
        Instance { context, lid: unknown, gid, bound: Vec::new() }
    }

    /// The context of group `gid` (no thread of it in particular) at the launch, where the
    /// clauses of the kernel, group and thread contracts are read.
    fn launch_context(&self, gid: Expr) -> Context<'k> {
        let unknown = Expr::var(names::UNKNOWN);
        let mut context = self.context([unknown.clone(), gid, unknown]);
        context.heaps = context.old_heaps.clone();
        context
    }

    /// What a level's written resources hold of `array` at `location` (for group `gid`): the exact
    /// amounts of its atoms that name it, and whether a `read` atom does (E15).
    pub(super) fn written(&self, level: Level, array: ArrayId, location: &Expr) -> Holdings {
        let gid = if level == Level::Kernel { names::UNKNOWN } else { names::GID };
        let context = self.launch_context(Expr::var(gid));
        let mut owned = Holdings::default();
        for conjunct in outline::level_atoms(self.kernel, level, Side::Pre, array) {
            let ConjunctKind::Perm { amount, .. } = &conjunct.kind else { continue };
            owned.add(context.amount(amount), conjunct::names_location(&context, &conjunct, location));
        }
        owned
    }

    /// The fence rule (E12) at barrier `barrier`, which does not fence `array`'s memory: no location
    /// it hands to a thread (`receiving`) may have been written by another thread of the group in an
    /// interval the barrier leaves unordered with what follows (`unordered`); under OpenCL's rule,
    /// nor accessed at all where the receiver gets write permission. A thread can write in an
    /// interval only what it held entirely at its start, and access only what it held some of.
    fn handover(
        &mut self,
        array: ArrayId,
        receiving: &[(Conjunct, usize)],
        barrier: usize,
        earlier: &[(Start, Assigned, Vec<Conjunct>)],
        model: MemoryModel,
        lockstep: &LockStep,
    ) -> Procedure {
        let kernel = self.kernel;
        let earlier: Vec<(Start, &Assigned, Vec<Atom>)> = earlier
            .iter()
            .map(|(start, assigned, atoms)| {
                (*start, assigned, atoms.iter().map(|conjunct| Atom { conjunct: conjunct.clone() }).collect())
            })
            .collect();
        let receiving: Vec<(Atom, usize)> =
            receiving.iter().map(|(conjunct, number)| (Atom { conjunct: conjunct.clone() }, *number)).collect();
        let mut builder = self.builder(lockstep);
        let location = Expr::var(LOCATION);
        let receiver = self.instance(Threads::Group, Point::Barrier(barrier), lockstep, &mut builder);
        let received: Vec<(&Atom, usize, Expr)> = receiving
            .iter()
            .map(|(atom, number)| (atom, *number, naming(&receiver, atom, &location, &mut builder)))
            .collect();
        let receiver_writes =
            write_permission(&receiver.context, received.iter().map(|(atom, _, names)| (*atom, names.clone())));
        let name = &kernel.array(array).name;
        // Some thread of the group may have written (or accessed) the location in some unordered
        // interval: one writer instance per interval start, with that start's atoms and state.
        let mut conflicts = Vec::new();
        for (start, assigned, atoms) in &earlier {
            let writer = self.instance(Threads::Group, Point::Earlier(*start, assigned), lockstep, &mut builder);
            let named: Vec<(&Atom, Expr)> =
                atoms.iter().map(|atom| (atom, naming(&writer, atom, &location, &mut builder))).collect();
            let writes = write_permission(&writer.context, named.iter().map(|(atom, names)| (*atom, names.clone())));
            let conflict = match model {
                MemoryModel::Seed => writes,
                MemoryModel::OpenCl => {
                    let accesses = disjunction(named.iter().map(|(_, names)| names.clone()));
                    Expr::binary(BinaryOp::Or, writes, Expr::binary(BinaryOp::And, accesses, receiver_writes.clone()))
                }
            };
            conflicts.push(Expr::binary(
                BinaryOp::And,
                Expr::binary(BinaryOp::Ne, receiver.lid.clone(), writer.lid.clone()),
                conflict,
            ));
        }
        let conflict = disjunction(conflicts);
        for (_, number, names) in &received {
            let violation = Expr::binary(BinaryOp::And, names.clone(), conflict.clone());
            self.prove(&mut builder.stmts, *number, Expr::negation(violation));
        }
        let facts = vec![expr::in_bounds(&Expr::var(names::GID), expr::groups())];
        let name = format!("fences_barrier_{barrier}_{name}");
        self.procedure(name, &[names::GID], facts, true, builder.locals, builder.stmts)
    }

    /// A procedure's state for the resource checks: the heaps, the lock-step-safe private
    /// variables (one value in all threads of a group at a barrier) and the location.
    fn builder(&self, lockstep: &LockStep) -> Builder {
        let kernel = self.kernel;
        let mut builder = Builder { locals: Vec::new(), stmts: Vec::new(), instances: 0, groups: Vec::new() };
        for index in self.arrays() {
            builder.locals.push(Binding::new(names::heap(kernel, index), Type::map(Type::Int, Type::Int)));
            builder.locals.push(Binding::new(names::old_heap(kernel, index), Type::map(Type::Int, Type::Int)));
        }
        for (position, var) in kernel.vars.iter().enumerate() {
            let id = VarId(position as u32);
            if var.kind == VarKind::Private && lockstep.is_safe_variable(kernel, id) {
                builder.locals.push(Binding::new(names::private(kernel, id), ivl_type(var.ty)));
            }
        }
        builder.locals.push(Binding::new(LOCATION, Type::Int));
        builder
    }

    /// A fresh thread: its ids, the launch facts, its precondition's facts that read no memory,
    /// and at a barrier its barrier precondition's facts (which hold when it arrives).
    fn instance(&mut self, threads: Threads, point: Point, lockstep: &LockStep, builder: &mut Builder) -> Instance<'k> {
        let kernel = self.kernel;
        builder.instances += 1;
        let number = builder.instances;
        let mut named = |stem: &str| {
            let name = format!("{stem}_{number}");
            builder.locals.push(Binding::new(&name, Type::Int));
            Expr::var(name)
        };
        let lid = named("lid");
        let gid = match threads {
            Threads::Group => Expr::var(names::GID),
            Threads::Kernel => named("gid"),
        };
        let gsize = Expr::var(names::GSIZE);
        let tid = thread_id(&gid, &lid);
        builder.assume(expr::in_bounds(&lid, gsize));
        match threads {
            Threads::Kernel => disjoint_group(&gid, builder),
            Threads::Group => some_group(&gid, builder),
        }
        let mut context = self.context([tid, gid.clone(), lid.clone()]);
        match point {
            // The thread contract reads the heap of the launch; a barrier's clauses the heap at the barrier.
            Point::Launch | Point::Earlier(Start::Launch, _) => context.heaps = context.old_heaps.clone(),
            Point::Barrier(_) => {}
            Point::Earlier(Start::Barrier(_), _) => {
                for array in self.arrays() {
                    let heap = builder.fresh(&names::heap(kernel, array), Type::map(Type::Int, Type::Int));
                    let Expr::Var(heap) = heap else { unreachable!("a fresh local is a variable") };
                    context.heaps[array] = heap;
                }
            }
        }
        let kept = |var: VarId| match point {
            Point::Earlier(_, assigned) => !assigned.contains(&var),
            Point::Launch | Point::Barrier(_) => true,
        };
        self.other_thread_privates(lockstep, &mut context, kept, |id, var| {
            builder.fresh(&names::private(kernel, id), ivl_type(var.ty))
        });
        let mut launch_context = context.clone();
        launch_context.heaps = context.old_heaps.clone();
        for conjunct in kernel.thread_contract.requires.iter().flat_map(|clause| normal_form(&clause.assertion)) {
            if let Some(fact) = facts::fact_without_old(&launch_context, &conjunct) {
                builder.assume(fact);
            }
        }
        if let Point::Barrier(index) = point {
            for conjunct in
                kernel.barriers[index].contract.requires.iter().flat_map(|clause| normal_form(&clause.assertion))
            {
                if let Some(fact) = facts::fact_without_old(&context, &conjunct) {
                    builder.assume(fact);
                }
            }
        }
        Instance { context, lid, gid, bound: Vec::new() }
    }

    /// What the group `gid` owns of `array` at `location` under generated contracts: the exact
    /// amounts of its threads' contract atoms that name it, and whether a `read` atom does (E8).
    /// The thread that names `location` through an atom is found by inverting the atom's index:
    /// symbolically for `tid + c` and `lid + c`, else through a function assumed to be a left
    /// inverse, which exists since `group.resources` proves the atom injective.
    fn owned(&mut self, array: ArrayId, location: &Expr, builder: &mut Builder) -> Holdings {
        let kernel = self.kernel;
        let atoms = atoms(&kernel.thread_contract.requires);
        let mut owned = Holdings::default();
        for (number, atom) in atoms.iter().filter(|atom| atom.array() == array).enumerate() {
            let gid = Expr::var(names::GID);
            let gsize = Expr::var(names::GSIZE);
            let group_context = self.launch_context(gid.clone());
            // An exact atom every thread of the group names alike: `gsize` times its amount (E16).
            let named = outline::named(kernel, &atom.conjunct, Holders::GroupThreads);
            if atom.amount().is_exact() && named != Named::Once {
                let hit = conjunct::names_location(&group_context, &atom.conjunct, location);
                owned.add(self.counted(named, atom.amount(), &group_context, builder), hit);
                continue;
            }
            if !atom.conjunct.binders.is_empty() {
                owned.add(group_context.amount(atom.amount()), self.named_by_some_thread(atom, location));
                continue;
            }
            // The thread precondition reads no private variable. A guard `e == c` with `e` linear
            // in the thread id pins the one thread that can hold the atom, whatever its index.
            let inverse = match symbolic_inverse(atom.index(), location, &group_context, &|_| false)
                .or_else(|| pinned_thread(&atom.conjunct.guards, &group_context))
            {
                Some(inverse) => inverse.lid(&gid),
                // A `read` may be held by many threads at once (a broadcast cell such as `a[0]`):
                // the group owns some of the location if any of its threads names it (E8).
                None if !atom.amount().is_exact() => {
                    owned.add(None, self.named_by_some_thread(atom, location));
                    continue;
                }
                None => self.left_inverse(atom, number, location, builder),
            };
            let mut context = self.context([
                Expr::binary(BinaryOp::Add, Expr::binary(BinaryOp::Mul, gid.clone(), gsize.clone()), inverse.clone()),
                gid,
                inverse.clone(),
            ]);
            context.heaps = context.old_heaps.clone();
            let (guard, index) = atom_at(&context, atom);
            let names_location = conjunction([
                expr::in_bounds(&inverse, gsize),
                guard,
                Expr::binary(BinaryOp::Eq, index, location.clone()),
            ]);
            owned.add(context.amount(atom.amount()), names_location);
        }
        owned
    }

    /// The term of what the holders that name a location through an atom hold there together:
    /// its amount once, or `n` times it for the `n` holders that name it alike (`None` for
    /// `read`, which does not add up). `n * (q \ n)` is `q`; any other product is `scaled(n, a)`,
    /// with the true facts about it the checks need: at least `a` for `n >= 1`, `a` for `n == 1`,
    /// and at most `q` for `a = q \ d` and `n <= d` (E16).
    fn counted(&mut self, named: Named, amount: &Amount, context: &Context, builder: &mut Builder) -> Option<Expr> {
        let term = context.amount(amount)?;
        let (gsize, tcount) = (Expr::var(names::GSIZE), Expr::var(names::TCOUNT));
        let count = match named {
            Named::Once => return Some(term),
            Named::ByGroupThreads => gsize,
            Named::ByAllThreads => tcount,
            Named::ByAllGroups => Expr::binary(BinaryOp::Div, tcount, gsize),
        };
        let divided = match amount {
            Amount::Divided { fraction, divisor } => Some((fraction, context.translate(divisor))),
            _ => None,
        };
        if let Some((fraction, divisor)) = &divided {
            if *divisor == count {
                return Some(Expr::Real((*fraction).clone()));
            }
        }
        let declared = |declaration: &Declaration| matches!(declaration, Declaration::Function(function) if function.name == names::SCALED);
        if !self.extra_declarations.iter().any(declared) {
            self.extra_declarations.push(Declaration::Function(ivl::Function {
                name: names::SCALED.into(),
                params: vec![Binding::new("n", Type::Int), Binding::new("q", Type::Real)],
                result: Type::Real,
                body: None,
            }));
        }
        let scaled = Expr::Call(names::SCALED.into(), vec![count.clone(), term.clone()]);
        let at_least_one = Expr::binary(BinaryOp::Ge, count.clone(), Expr::int(1));
        let non_negative = Expr::binary(BinaryOp::Ge, term.clone(), real_literal(0));
        builder.assume(Expr::binary(
            BinaryOp::Implies,
            Expr::binary(BinaryOp::And, at_least_one, non_negative),
            Expr::binary(BinaryOp::Ge, scaled.clone(), term.clone()),
        ));
        builder.assume(Expr::binary(
            BinaryOp::Implies,
            Expr::binary(BinaryOp::Eq, count.clone(), Expr::int(1)),
            Expr::binary(BinaryOp::Eq, scaled.clone(), term),
        ));
        if let Some((fraction, divisor)) = divided {
            builder.assume(Expr::binary(
                BinaryOp::Implies,
                Expr::binary(
                    BinaryOp::And,
                    Expr::binary(BinaryOp::Le, count, divisor.clone()),
                    Expr::binary(BinaryOp::Ge, divisor, Expr::int(1)),
                ),
                Expr::binary(BinaryOp::Le, scaled.clone(), Expr::Real(fraction.clone())),
            ));
        }
        Some(scaled)
    }

    /// Whether some thread of the group `gid` names `location` through a thread-contract atom at the
    /// launch, for some values of its `\forall*` variables.
    fn named_by_some_thread(&self, atom: &Atom, location: &Expr) -> Expr {
        let gid = Expr::var(names::GID);
        let lid = Expr::var("owner_lid");
        let mut context = self.context([thread_id(&gid, &lid), gid.clone(), lid.clone()]);
        context.heaps = context.old_heaps.clone();
        let mut bound = vec![Binding::new("owner_lid", Type::Int)];
        let mut range = Vec::new();
        for (number, binder) in atom.conjunct.binders.iter().enumerate() {
            let name = if number == 0 { "owner_bound".to_string() } else { format!("owner_bound_{number}") };
            bound.push(Binding::new(&name, Type::Int));
            context.vars.insert(binder.var, Expr::var(&name));
            range.push(context.translate(&binder.range));
        }
        let (guard, index) = atom_at(&context, atom);
        let body = [expr::in_bounds(&lid, Expr::var(names::GSIZE))]
            .into_iter()
            .chain(range)
            .chain([guard, Expr::binary(BinaryOp::Eq, index, location.clone())]);
        Expr::Quantified {
            quantifier: ivl::Quantifier::Exists,
            bound,
            triggers: Vec::new(),
            body: Box::new(conjunction(body)),
        }
    }

    /// `inverse(j)`, a fresh function assumed to map each location an atom names in the group back
    /// to the thread's `lid`.
    fn left_inverse(&mut self, atom: &Atom, number: usize, location: &Expr, builder: &mut Builder) -> Expr {
        // Numbered by the declarations made so far: one per call, whichever check asks for it.
        let name =
            format!("inverse_{}_{number}_{}", self.kernel.array(atom.array()).name, self.extra_declarations.len());
        self.extra_declarations.push(Declaration::Function(ivl::Function {
            name: name.clone(),
            params: vec![Binding::new("g", Type::Int), Binding::new("location", Type::Int)],
            result: Type::Int,
            body: None,
        }));
        let gid = Expr::var(names::GID);
        let lid = Expr::var("inverted_lid");
        let gsize = Expr::var(names::GSIZE);
        let mut context = self.context([
            Expr::binary(BinaryOp::Add, Expr::binary(BinaryOp::Mul, gid.clone(), gsize.clone()), lid.clone()),
            gid.clone(),
            lid.clone(),
        ]);
        context.heaps = context.old_heaps.clone();
        let (guard, index) = atom_at(&context, atom);
        builder.assume(Expr::Quantified {
            quantifier: ivl::Quantifier::Forall,
            bound: vec![Binding::new("inverted_lid", Type::Int)],
            triggers: Vec::new(),
            body: Box::new(Expr::binary(
                BinaryOp::Implies,
                Expr::binary(BinaryOp::And, expr::in_bounds(&lid, gsize), guard),
                Expr::binary(BinaryOp::Eq, Expr::Call(name.clone(), vec![gid.clone(), index]), lid.clone()),
            )),
        });
        Expr::Call(name, vec![gid, location.clone()])
    }
}

/// The permission atoms of a contract's clauses.
fn atoms(clauses: &[logic::Clause]) -> Vec<Atom> {
    clauses
        .iter()
        .flat_map(|clause| normal_form(&clause.assertion))
        .filter(|conjunct| matches!(conjunct.kind, ConjunctKind::Perm { .. }))
        .map(|conjunct| Atom { conjunct })
        .collect()
}

/// Assumes `gid` is a group of the kernel, with its block of threads.
fn some_group(gid: &Expr, builder: &mut Builder) {
    builder.assume(expr::in_bounds(gid, expr::groups()));
    for fact in group_block(gid) {
        builder.assume(fact);
    }
}

/// Assumes `gid` is a group of the kernel whose block of threads is disjoint from the blocks of
/// the groups drawn before it: `g < h ==> g*gsize + gsize <= h*gsize`, a true fact (gsize >= 1)
/// stated for each pair so the solver needs no non-linear step (E9).
fn disjoint_group(gid: &Expr, builder: &mut Builder) {
    some_group(gid, builder);
    let gsize = Expr::var(names::GSIZE);
    for other in builder.groups.clone() {
        for (low, high) in [(gid, &other), (&other, gid)] {
            let block = |group: &Expr| Expr::binary(BinaryOp::Mul, group.clone(), gsize.clone());
            builder.assume(Expr::binary(
                BinaryOp::Implies,
                Expr::binary(BinaryOp::Lt, low.clone(), high.clone()),
                Expr::binary(BinaryOp::Le, Expr::binary(BinaryOp::Add, block(low), gsize.clone()), block(high)),
            ));
        }
    }
    builder.groups.push(gid.clone());
}

/// Permission at one location, summed over atoms: the exact amounts of the atoms that name it,
/// and whether a `read` atom does.
pub(super) struct Holdings {
    pub(super) exact: Expr,
    pub(super) read: Expr,
}

impl Default for Holdings {
    fn default() -> Holdings {
        Holdings { exact: real_literal(0), read: Expr::Bool(false) }
    }
}

impl Holdings {
    /// Counts an amount (its term, `None` for `read`) where `names_location` holds.
    fn add(&mut self, exact: Option<Expr>, names_location: Expr) {
        match exact {
            Some(term) => {
                let amount = Expr::IfThenElse(Box::new(names_location), Box::new(term), Box::new(real_literal(0)));
                self.exact = Expr::binary(BinaryOp::Add, self.exact.clone(), amount);
            }
            None => self.read = Expr::binary(BinaryOp::Or, self.read.clone(), names_location),
        }
    }
}

/// Gives an instance fresh values for the atom's `\forall*` variables; the atom names a location
/// only where those values lie in their ranges ([`Instance::at`]).
fn bind(instance: &mut Instance, atom: &Atom, builder: &mut Builder) {
    instance.bound.clear();
    for binder in &atom.conjunct.binders {
        let name = format!("bound_{}", builder.locals.len());
        builder.locals.push(Binding::new(&name, Type::Int));
        instance.context.vars.insert(binder.var, Expr::var(&name));
        let range = instance.context.translate(&binder.range);
        instance.bound.push((Expr::var(name), range));
    }
}

/// Whether an atom names `location` in an instance's thread, for some value of its `\forall*`
/// variable (a fresh one of its own, so that two atoms under one `\forall*` range independently).
fn naming(instance: &Instance, atom: &Atom, location: &Expr, builder: &mut Builder) -> Expr {
    let mut instance = Instance {
        context: instance.context.clone(),
        lid: instance.lid.clone(),
        gid: instance.gid.clone(),
        bound: Vec::new(),
    };
    bind(&mut instance, atom, builder);
    let (guard, index) = instance.at(atom);
    Expr::binary(BinaryOp::And, guard, Expr::binary(BinaryOp::Eq, index, location.clone()))
}

/// Whether atoms that name a location where their condition holds add up to write permission
/// there: their exact amounts reach 1 (a `read` never completes a write).
fn write_permission<'a>(context: &Context, atoms: impl Iterator<Item = (&'a Atom, Expr)>) -> Expr {
    let mut held = Holdings::default();
    for (atom, names) in atoms {
        if atom.amount().is_exact() {
            held.add(context.amount(atom.amount()), names);
        }
    }
    Expr::binary(BinaryOp::Ge, held.exact, real_literal(1))
}

fn disjunction(parts: impl IntoIterator<Item = Expr>) -> Expr {
    parts.into_iter().reduce(|left, right| Expr::binary(BinaryOp::Or, left, right)).unwrap_or(Expr::Bool(false))
}

/// An atom's guard and index in a thread's context.
fn atom_at(context: &Context, atom: &Atom) -> (Expr, Expr) {
    let guards: Vec<Expr> = atom.conjunct.guards.iter().map(|guard| context.translate(guard)).collect();
    (conjunction(guards), context.translate(atom.index()))
}

fn real_literal(value: i64) -> Expr {
    Expr::Real(BigRational::from_integer(BigInt::from(value)))
}
