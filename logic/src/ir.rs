//! The kernel IR: the resolved and typed form of a `.pvl` file.
//!
//! Ids ([`VarId`], [`ArrayId`], [`FunctionId`], [`BarrierId`]) index the tables of the enclosing
//! [`Kernel`] or [`Function`]; they are only meaningful there.

use num_bigint::BigInt;
use num_rational::BigRational;
use std::collections::HashMap;

/// A half-open range of byte offsets into the source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    ///
    /// ```
    /// use lockstep_logic::Span;
    /// assert_eq!(Span::new(4, 9).to(Span::new(1, 5)), Span::new(1, 9));
    /// ```
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A whole input file: pure functions (shared by all kernels of the file) and kernels.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub functions: Vec<Function>,
    pub kernels: Vec<Kernel>,
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A variable of the enclosing kernel's or function's [`Var`] table.
    VarId
);
id_type!(
    /// An array of the enclosing kernel's table.
    ArrayId
);
id_type!(
    /// A pure function of the [`Program`].
    FunctionId
);
id_type!(
    /// A barrier of the enclosing kernel, numbered in source order.
    BarrierId
);

/// The types of values. Permission amounts and resource formulas are not values: they have their
/// own syntax in the IR ([`Amount`], [`Assertion`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// A mathematical (unbounded) integer.
    Int,
    Bool,
}

/// The reserved names of a kernel, constant within a thread.
///
/// A launch may be shaped in up to three dimensions, as CUDA and OpenCL shape it: each axis has its
/// ids and sizes (`lid_x`, `gid_y`, `gsize_z`, `groups_x`, ...), and the linear ids number the
/// threads with `x` fastest: `lid == lid_x + gsize_x * (lid_y + gsize_y * lid_z)`,
/// `gid == gid_x + groups_x * (gid_y + groups_y * gid_z)`, `gsize == gsize_x * gsize_y * gsize_z`
/// and `tcount == gsize * groups_x * groups_y * groups_z`. A kernel has the dimensions its text
/// names ([`Kernel::dimensions`]): the sizes of the axes above them are 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// Thread id in the kernel.
    Tid,
    /// Group id.
    Gid,
    /// Thread id in its group.
    Lid,
    /// Threads in the kernel.
    Tcount,
    /// Threads per group.
    Gsize,
    /// The thread's id in its group along an axis (CUDA's `threadIdx`, OpenCL's `get_local_id`).
    LocalId(Axis),
    /// The group's id along an axis (`blockIdx`, `get_group_id`).
    GroupId(Axis),
    /// Threads per group along an axis (`blockDim`, `get_local_size`).
    GroupSize(Axis),
    /// Groups along an axis (`gridDim`, `get_num_groups`).
    Groups(Axis),
}

/// An axis of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    pub const ALL: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

    /// The dimensions a launch needs to have this axis: 1, 2 or 3.
    pub fn dimensions(self) -> usize {
        self as usize + 1
    }
}

impl Builtin {
    pub const ALL: [Builtin; 17] = [
        Builtin::Tid,
        Builtin::Gid,
        Builtin::Lid,
        Builtin::Tcount,
        Builtin::Gsize,
        Builtin::LocalId(Axis::X),
        Builtin::LocalId(Axis::Y),
        Builtin::LocalId(Axis::Z),
        Builtin::GroupId(Axis::X),
        Builtin::GroupId(Axis::Y),
        Builtin::GroupId(Axis::Z),
        Builtin::GroupSize(Axis::X),
        Builtin::GroupSize(Axis::Y),
        Builtin::GroupSize(Axis::Z),
        Builtin::Groups(Axis::X),
        Builtin::Groups(Axis::Y),
        Builtin::Groups(Axis::Z),
    ];

    pub fn name(self) -> &'static str {
        let by_axis = |names: [&'static str; 3], axis: Axis| names[axis as usize];
        match self {
            Builtin::Tid => "tid",
            Builtin::Gid => "gid",
            Builtin::Lid => "lid",
            Builtin::Tcount => "tcount",
            Builtin::Gsize => "gsize",
            Builtin::LocalId(axis) => by_axis(["lid_x", "lid_y", "lid_z"], axis),
            Builtin::GroupId(axis) => by_axis(["gid_x", "gid_y", "gid_z"], axis),
            Builtin::GroupSize(axis) => by_axis(["gsize_x", "gsize_y", "gsize_z"], axis),
            Builtin::Groups(axis) => by_axis(["groups_x", "groups_y", "groups_z"], axis),
        }
    }

    /// Whether the value differs between the threads of one work group.
    pub fn is_thread_specific(self) -> bool {
        matches!(self, Builtin::Tid | Builtin::Lid | Builtin::LocalId(_))
    }

    /// Whether the value is the same in all threads of a group and may differ between groups.
    pub fn is_group_specific(self) -> bool {
        matches!(self, Builtin::Gid | Builtin::GroupId(_))
    }

    /// Whether the value is a size of the launch, the same in all threads of the kernel.
    pub fn is_launch_size(self) -> bool {
        matches!(self, Builtin::Tcount | Builtin::Gsize | Builtin::GroupSize(_) | Builtin::Groups(_))
    }

    /// The axis of a per-axis id or size.
    pub fn axis(self) -> Option<Axis> {
        match self {
            Builtin::LocalId(axis) | Builtin::GroupId(axis) | Builtin::GroupSize(axis) | Builtin::Groups(axis) => {
                Some(axis)
            }
            Builtin::Tid | Builtin::Gid | Builtin::Lid | Builtin::Tcount | Builtin::Gsize => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub ty: Type,
    pub kind: VarKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// A scalar parameter of a kernel: uniform over all threads, read-only.
    KernelParam,
    /// A parameter of a pure function.
    FunctionParam,
    /// A private variable of the thread, declared in the kernel body.
    Private,
    /// A variable bound by a quantifier.
    Bound,
}

/// A pure mathematical function, usable in specifications and code. It reads no memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub span: Span,
    pub params: Vec<VarId>,
    pub vars: Vec<Var>,
    pub result: Type,
    /// Preconditions over the parameters; every call must establish them.
    pub requires: Vec<Expr>,
    /// Postconditions over the parameters and [`ExprKind::Result`].
    pub ensures: Vec<Expr>,
    /// The written `decreases` measure, an int over the parameters: what the function's calls of
    /// itself, and of the functions it shares a cycle of calls with, make smaller
    /// ([`crate::recursion::measure`]).
    pub decreases: Option<Expr>,
    pub body: Expr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Memory {
    /// One copy per kernel launch, shared by all work groups.
    Global,
    /// One copy per work group; the group always owns all of it.
    Local,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub name: String,
    pub memory: Memory,
    /// The number of elements: an expression over `gsize`, `tcount` and kernel parameters.
    pub size: Expr,
    /// Whether accesses and permissions are checked to lie in `[0, size)` (`access.bounds`). An
    /// array of C code whose length no annotation states or speaks of is not: the launch provides
    /// the cells the kernel holds permission to, as a contract's permission demands them of it,
    /// so holding the permission is what makes an access in bounds (GPUVerify does not check
    /// the bounds of such arrays either).
    pub bounded: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub span: Span,
    pub params: Vec<VarId>,
    pub vars: Vec<Var>,
    pub arrays: Vec<Array>,
    /// `kernel requires/ensures`: `None` when the user wrote none, and it is to be generated.
    pub kernel_contract: Option<Contract>,
    /// `group requires/ensures`: `None` when the user wrote none, and it is to be generated.
    pub group_contract: Option<Contract>,
    /// The contract of `main`, for one arbitrary thread.
    pub thread_contract: Contract,
    pub barriers: Vec<Barrier>,
    pub body: Block,
    /// The dimensions of the launch: 3 when the kernel names an id or size of the `z` axis, else 2
    /// when it names one of `y`, else 1 (see [`Builtin`]).
    pub dimensions: usize,
    /// The spans of the loop invariants that are only candidates (GPUVerify's
    /// `__candidate_invariant`, or every written one with `--invariants-as-candidates`): where
    /// permissions are inferred, Houdini keeps those that hold ([`crate::infer`]); a kernel
    /// that names permissions is verified without them.
    pub candidate_invariants: Vec<Span>,
    /// The claims a frontend could not state for one thread, with why: GPUVerify's assertions
    /// over its pair of threads (`__other_int(x)`, `__uniform_int(x)`, ...). Each is asserted of
    /// a boolean of no known value, so it is never verified where it is reached, and a failure
    /// there is reported undecided with the reason, never failed.
    pub unstated_claims: Vec<(Span, String)>,
    /// The calls the threads of a group make together, other than barriers: OpenCL's
    /// asynchronous copies and their waits.
    pub collectives: Vec<Collective>,
}

/// A call that every thread of a group makes at once, with the same arguments (OpenCL's
/// `async_work_group_copy`): the frontend saves what the threads must agree on in private
/// variables where the call is made, and the kernel is free of barrier divergence only where
/// each of them is lock-step safe ([`crate::lockstep`]), as it is where the call is reached
/// under conditions that are and with values that are.
#[derive(Clone, Debug, PartialEq)]
pub struct Collective {
    pub span: Span,
    /// The call's name, for the messages.
    pub call: &'static str,
    pub agreed: Vec<VarId>,
}

impl Kernel {
    /// The spans of every loop invariant of the body, in the order they stand.
    pub fn loop_invariant_spans(&self) -> Vec<Span> {
        fn in_block(block: &Block, spans: &mut Vec<Span>) {
            for stmt in &block.stmts {
                match &stmt.kind {
                    StmtKind::While { invariants, body, .. } => {
                        spans.extend(invariants.iter().map(|clause| clause.span));
                        in_block(body, spans);
                    }
                    StmtKind::If { then_branch, else_branch, .. } => {
                        in_block(then_branch, spans);
                        if let Some(block) = else_branch {
                            in_block(block, spans);
                        }
                    }
                    StmtKind::Block(inner) => in_block(inner, spans),
                    _ => {}
                }
            }
        }
        let mut spans = Vec::new();
        in_block(&self.body, &mut spans);
        spans
    }

    /// The kernel without its candidate loop invariants ([`Kernel::candidate_invariants`]).
    pub fn drop_candidate_invariants(&mut self) {
        fn in_block(block: &mut Block, candidates: &[Span]) {
            for stmt in &mut block.stmts {
                match &mut stmt.kind {
                    StmtKind::While { invariants, body, .. } => {
                        invariants.retain(|clause| !candidates.contains(&clause.span));
                        in_block(body, candidates);
                    }
                    StmtKind::If { then_branch, else_branch, .. } => {
                        in_block(then_branch, candidates);
                        if let Some(block) = else_branch {
                            in_block(block, candidates);
                        }
                    }
                    StmtKind::Block(inner) => in_block(inner, candidates),
                    _ => {}
                }
            }
        }
        let candidates = std::mem::take(&mut self.candidate_invariants);
        in_block(&mut self.body, &candidates);
    }

    /// The value a precondition pins a launch size to: a conjunct `gsize_x == 16` (or
    /// `16 == gsize_x`) of a `requires` clause at any level, where every thread of every launch the
    /// kernel accepts sees it. `None` when no clause pins it.
    pub fn pinned_size(&self, size: Builtin) -> Option<BigInt> {
        fn in_expr(expr: &Expr, size: Builtin) -> Option<BigInt> {
            match &expr.kind {
                ExprKind::Binary { op: BinaryOp::And, lhs, rhs } => in_expr(lhs, size).or_else(|| in_expr(rhs, size)),
                ExprKind::Binary { op: BinaryOp::Eq, lhs, rhs } => match (&lhs.kind, &rhs.kind) {
                    (ExprKind::Builtin(builtin), ExprKind::Int(value))
                    | (ExprKind::Int(value), ExprKind::Builtin(builtin))
                        if *builtin == size =>
                    {
                        Some(value.clone())
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        fn in_assertion(assertion: &Assertion, size: Builtin) -> Option<BigInt> {
            match &assertion.kind {
                AssertionKind::Pure(expr) => in_expr(expr, size),
                AssertionKind::Star(left, right) => in_assertion(left, size).or_else(|| in_assertion(right, size)),
                _ => None,
            }
        }
        let contracts = [self.kernel_contract.as_ref(), self.group_contract.as_ref(), Some(&self.thread_contract)];
        contracts
            .into_iter()
            .flatten()
            .flat_map(|contract| &contract.requires)
            .find_map(|clause| in_assertion(&clause.assertion, size))
    }

    /// Restricts the launches the kernel is verified for to the given extents (groups, and
    /// threads per group, along `x`, `y` and `z`), as `requires` clauses of every level that has
    /// a contract: `groups_x == 1`, ... (which [`Kernel::pinned_size`] then finds). The extents
    /// of axes above the kernel's dimensions multiply into its last axis, so that a launch of
    /// `4x4` threads per group is `gsize == 16` for a kernel of one dimension.
    pub fn restrict_launch(&mut self, groups: Option<[u32; 3]>, group_size: Option<[u32; 3]>, span: Span) {
        let mut facts = Vec::new();
        for (extents, builtin) in [(groups, Builtin::Groups as fn(Axis) -> Builtin), (group_size, Builtin::GroupSize)] {
            let Some(extents) = extents else { continue };
            for (index, &axis) in Axis::ALL[..self.dimensions].iter().enumerate() {
                let extent: BigInt = if index + 1 == self.dimensions {
                    extents[index..].iter().map(|&extent| BigInt::from(extent)).product()
                } else {
                    BigInt::from(extents[index])
                };
                let size = Expr { kind: ExprKind::Builtin(builtin(axis)), ty: Type::Int, span };
                let value = Expr { kind: ExprKind::Int(extent), ty: Type::Int, span };
                facts.push(Expr {
                    kind: ExprKind::Binary { op: BinaryOp::Eq, lhs: Box::new(size), rhs: Box::new(value) },
                    ty: Type::Bool,
                    span,
                });
            }
        }
        self.assume(facts);
    }

    /// Adds facts about the launch and the parameters (`tcount <= 2147483647`) as the first
    /// `requires` clauses of every level that has a contract, so that every thread of every launch
    /// the kernel is verified for sees them, and every written clause may rely on them.
    pub fn assume(&mut self, facts: Vec<Expr>) {
        let clauses: Vec<Clause> = facts
            .into_iter()
            .map(|fact| {
                let span = fact.span;
                Clause { assertion: Assertion { kind: AssertionKind::Pure(fact), span }, span }
            })
            .collect();
        let contracts = [self.kernel_contract.as_mut(), self.group_contract.as_mut(), Some(&mut self.thread_contract)];
        for contract in contracts.into_iter().flatten() {
            contract.requires.splice(0..0, clauses.iter().cloned());
        }
    }

    pub fn var(&self, id: VarId) -> &Var {
        &self.vars[id.index()]
    }

    pub fn array(&self, id: ArrayId) -> &Array {
        &self.arrays[id.index()]
    }

    pub fn barrier(&self, id: BarrierId) -> &Barrier {
        &self.barriers[id.index()]
    }

    /// Every assertion of the kernel: its contracts at every level, its barriers', its loop
    /// invariants and its `assert` statements.
    pub fn assertions(&self) -> Vec<&Assertion> {
        fn in_block<'k>(block: &'k Block, found: &mut Vec<&'k Assertion>) {
            for stmt in &block.stmts {
                match &stmt.kind {
                    StmtKind::While { invariants, body, .. } => {
                        found.extend(invariants.iter().map(|invariant| &invariant.assertion));
                        in_block(body, found);
                    }
                    StmtKind::If { then_branch, else_branch, .. } => {
                        in_block(then_branch, found);
                        if let Some(else_branch) = else_branch {
                            in_block(else_branch, found);
                        }
                    }
                    StmtKind::Block(inner) => in_block(inner, found),
                    StmtKind::Assert(assertion) => found.push(assertion),
                    StmtKind::Declare { .. }
                    | StmtKind::Assign { .. }
                    | StmtKind::Write { .. }
                    | StmtKind::Barrier(_)
                    | StmtKind::Assume(_) => {}
                }
            }
        }
        let contracts = [self.kernel_contract.as_ref(), self.group_contract.as_ref(), Some(&self.thread_contract)];
        let contracts = contracts.into_iter().flatten().chain(self.barriers.iter().map(|barrier| &barrier.contract));
        let mut found: Vec<&Assertion> = contracts
            .flat_map(|contract| contract.requires.iter().chain(&contract.ensures))
            .map(|clause| &clause.assertion)
            .collect();
        in_block(&self.body, &mut found);
        found
    }

    /// Whether any assertion of the kernel names a permission. A kernel without any is run as
    /// owning all memory (`lockstep run`).
    pub fn has_permissions(&self) -> bool {
        fn in_assertion(assertion: &Assertion) -> bool {
            match &assertion.kind {
                AssertionKind::Pure(_) => false,
                AssertionKind::Perm(_) | AssertionKind::ForallStar { .. } => true,
                AssertionKind::Star(lhs, rhs) | AssertionKind::Cond(_, lhs, rhs) => {
                    in_assertion(lhs) || in_assertion(rhs)
                }
                AssertionKind::Implies(_, body) => in_assertion(body),
            }
        }
        self.assertions().into_iter().any(in_assertion)
    }

    /// Every permission atom the kernel's assertions name, in order.
    pub fn perm_atoms(&self) -> Vec<&PermAtom> {
        let mut atoms = Vec::new();
        let mut work: Vec<&Assertion> = self.assertions();
        work.reverse();
        while let Some(assertion) = work.pop() {
            match &assertion.kind {
                AssertionKind::Pure(_) => {}
                AssertionKind::Perm(atom) => atoms.push(atom),
                AssertionKind::Star(lhs, rhs) | AssertionKind::Cond(_, lhs, rhs) => work.extend([&**rhs, &**lhs]),
                AssertionKind::Implies(_, body) | AssertionKind::ForallStar { body, .. } => work.push(body),
            }
        }
        atoms
    }

    /// The counters the kernel's code increments ([`ExprKind::Ticket`]): each array with the
    /// number of its increment sites (one more than the greatest site) and the counter's type, in
    /// the order of the arrays.
    pub fn counters(&self) -> Vec<Counter> {
        fn in_expr(expr: &Expr, found: &mut Vec<Counter>) {
            let mut stack = vec![expr];
            while let Some(expr) = stack.pop() {
                if let ExprKind::Ticket { counter, site, int, .. } = &expr.kind {
                    match found.iter_mut().find(|found| found.array == *counter) {
                        Some(found) => found.sites = found.sites.max(site + 1),
                        None => found.push(Counter { array: *counter, sites: site + 1, int: *int }),
                    }
                }
                expr.children(&mut stack);
            }
        }
        fn in_block(block: &Block, found: &mut Vec<Counter>) {
            for stmt in &block.stmts {
                match &stmt.kind {
                    StmtKind::Declare { init, .. } => init.iter().for_each(|init| in_expr(init, found)),
                    StmtKind::Assign { value, .. } | StmtKind::Assume(value) => in_expr(value, found),
                    StmtKind::Write { index, value, .. } => [index, value].into_iter().for_each(|e| in_expr(e, found)),
                    StmtKind::If { cond, then_branch, else_branch } => {
                        in_expr(cond, found);
                        in_block(then_branch, found);
                        else_branch.iter().for_each(|block| in_block(block, found));
                    }
                    StmtKind::While { cond, body, .. } => {
                        in_expr(cond, found);
                        in_block(body, found);
                    }
                    StmtKind::Block(inner) => in_block(inner, found),
                    StmtKind::Barrier(_) | StmtKind::Assert(_) => {}
                }
            }
        }
        let mut found = Vec::new();
        in_block(&self.body, &mut found);
        found.sort_by_key(|counter| counter.array);
        found
    }

    /// Whether some statement of the kernel writes `array`. An array no thread writes keeps its
    /// launch contents throughout, the same in every thread, whatever the barriers fence.
    pub fn writes(&self, array: ArrayId) -> bool {
        self.body.stmts.iter().any(|stmt| stmt.writes(array))
    }
}

impl Stmt {
    /// Whether the statement, or one in it, writes `array`.
    pub fn writes(&self, array: ArrayId) -> bool {
        let in_block = |block: &Block| block.stmts.iter().any(|stmt| stmt.writes(array));
        match &self.kind {
            StmtKind::Write { array: written, .. } => *written == array,
            StmtKind::If { then_branch, else_branch, .. } => {
                in_block(then_branch) || else_branch.as_ref().is_some_and(in_block)
            }
            StmtKind::While { body, .. } | StmtKind::Block(body) => in_block(body),
            _ => false,
        }
    }
}

/// A counter the kernel's code increments ([`Kernel::counters`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counter {
    pub array: ArrayId,
    /// How many places of the code increment it (each at most once per thread).
    pub sites: u32,
    pub int: MachineInt,
}

/// A contract: its clauses in source order. The clauses of one list form one conjunction read left
/// to right, which matters for framing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Contract {
    pub requires: Vec<Clause>,
    pub ensures: Vec<Clause>,
}

/// One `requires`, `ensures` or `invariant` clause.
#[derive(Clone, Debug, PartialEq)]
pub struct Clause {
    pub assertion: Assertion,
    /// The whole clause, keyword included.
    pub span: Span,
}

/// Which memories a barrier fences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fences {
    pub local: bool,
    pub global: bool,
}

impl Fences {
    pub fn fences(self, memory: Memory) -> bool {
        match memory {
            Memory::Local => self.local,
            Memory::Global => self.global,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Barrier {
    /// The label the user wrote, as in `barrier(1, {local})`.
    pub label: Option<BigInt>,
    pub fences: Fences,
    /// `requires` is the barrier precondition, `ensures` its resources and postcondition.
    pub contract: Contract,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `int x;` or `int x := e;`.
    Declare {
        var: VarId,
        init: Option<Expr>,
    },
    /// `x := e;` to a private variable.
    Assign {
        var: VarId,
        value: Expr,
    },
    /// `a[i] := e;`.
    Write {
        array: ArrayId,
        index: Expr,
        value: Expr,
    },
    If {
        cond: Expr,
        then_branch: Block,
        else_branch: Option<Block>,
    },
    While {
        invariants: Vec<Clause>,
        cond: Expr,
        body: Block,
    },
    Barrier(BarrierId),
    /// `assert R;`: checked.
    Assert(Assertion),
    /// `assume e;`: taken for granted, unchecked.
    Assume(Expr),
    Block(Block),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

impl Expr {
    /// `lower <= var && var < upper`: the range of a `\sum`, as a condition on its variable.
    pub fn half_open_range(var: VarId, lower: &Expr, upper: &Expr) -> Expr {
        let span = lower.span.to(upper.span);
        let bound = Expr { kind: ExprKind::Var(var), ty: Type::Int, span };
        let compare = |op, lhs: &Expr, rhs: &Expr| Expr {
            kind: ExprKind::Binary { op, lhs: Box::new(lhs.clone()), rhs: Box::new(rhs.clone()) },
            ty: Type::Bool,
            span,
        };
        compare(BinaryOp::And, &compare(BinaryOp::Le, lower, &bound), &compare(BinaryOp::Lt, &bound, upper))
    }

    /// Whether the expression is at least 0 in every state, by its form alone: a literal, an id or
    /// size (all at least 0), and sums, products, quotients and remainders of such (a remainder of
    /// a non-negative dividend is non-negative, and `mod` always is).
    pub fn is_non_negative(&self) -> bool {
        match &self.kind {
            ExprKind::Int(value) => *value >= BigInt::from(0),
            ExprKind::Builtin(_) => true,
            ExprKind::Binary { op: BinaryOp::Mod, .. } => true,
            ExprKind::Binary { op: BinaryOp::Add | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem, lhs, rhs } => {
                lhs.is_non_negative() && rhs.is_non_negative()
            }
            _ => false,
        }
    }

    /// Replaces the given variables by their values (which bind no variable of the expression).
    pub fn substitute(&self, values: &HashMap<VarId, Expr>) -> Expr {
        self.rewrite(&|expr| match &expr.kind {
            ExprKind::Var(var) => values.get(var).map(|value| Expr { span: expr.span, ..value.clone() }),
            _ => None,
        })
    }

    /// The expression with each subexpression that `replace` gives a replacement for (the
    /// outermost first) replaced.
    pub fn rewrite(&self, replace: &dyn Fn(&Expr) -> Option<Expr>) -> Expr {
        if let Some(replaced) = replace(self) {
            return replaced;
        }
        let recurse = |expr: &Expr| Box::new(expr.rewrite(replace));
        let kind = match &self.kind {
            ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Builtin(_) | ExprKind::Result => {
                self.kind.clone()
            }
            ExprKind::Read { array, index } => ExprKind::Read { array: *array, index: recurse(index) },
            ExprKind::Unary { op, operand } => ExprKind::Unary { op: *op, operand: recurse(operand) },
            ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary { op: *op, lhs: recurse(lhs), rhs: recurse(rhs) },
            ExprKind::Cond { cond, then_value, else_value } => {
                ExprKind::Cond { cond: recurse(cond), then_value: recurse(then_value), else_value: recurse(else_value) }
            }
            ExprKind::Call { function, args } => {
                ExprKind::Call { function: *function, args: args.iter().map(|arg| arg.rewrite(replace)).collect() }
            }
            ExprKind::Quantifier { quantifier, var, range, body } => {
                ExprKind::Quantifier { quantifier: *quantifier, var: *var, range: recurse(range), body: recurse(body) }
            }
            ExprKind::Sum { var, lower, upper, body } => {
                ExprKind::Sum { var: *var, lower: recurse(lower), upper: recurse(upper), body: recurse(body) }
            }
            ExprKind::Old(inner) => ExprKind::Old(recurse(inner)),
            ExprKind::InRange { value, int } => ExprKind::InRange { value: recurse(value), int: *int },
            ExprKind::PrivateIndex { index, length } => {
                ExprKind::PrivateIndex { index: recurse(index), length: *length }
            }
            ExprKind::Ticket { counter, cell, site, int } => {
                ExprKind::Ticket { counter: *counter, cell: recurse(cell), site: *site, int: *int }
            }
        };
        Expr { kind, ty: self.ty, span: self.span }
    }

    /// Whether some subexpression (the expression itself included) passes `test`.
    pub fn any(&self, test: impl Fn(&Expr) -> bool) -> bool {
        let mut work = vec![self];
        while let Some(next) = work.pop() {
            if test(next) {
                return true;
            }
            next.children(&mut work);
        }
        false
    }

    /// Whether the variable occurs in the expression.
    pub fn mentions(&self, var: VarId) -> bool {
        let mut work = vec![self];
        while let Some(next) = work.pop() {
            if matches!(next.kind, ExprKind::Var(found) if found == var) {
                return true;
            }
            next.children(&mut work);
        }
        false
    }

    /// The expression with every node spanning `span`.
    pub fn spanning(&self, span: Span) -> Expr {
        let mut expr = self.clone();
        let mut work = vec![&mut expr];
        while let Some(next) = work.pop() {
            next.span = span;
            match &mut next.kind {
                ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Builtin(_) | ExprKind::Var(_) | ExprKind::Result => {}
                ExprKind::Read { index: operand, .. }
                | ExprKind::Unary { operand, .. }
                | ExprKind::Old(operand)
                | ExprKind::InRange { value: operand, .. }
                | ExprKind::PrivateIndex { index: operand, .. }
                | ExprKind::Ticket { cell: operand, .. } => work.push(operand),
                ExprKind::Binary { lhs, rhs, .. } => work.extend([&mut **lhs, &mut **rhs]),
                ExprKind::Cond { cond, then_value, else_value } => {
                    work.extend([&mut **cond, &mut **then_value, &mut **else_value])
                }
                ExprKind::Call { args, .. } => work.extend(args.iter_mut()),
                ExprKind::Quantifier { range, body, .. } => work.extend([&mut **range, &mut **body]),
                ExprKind::Sum { lower, upper, body, .. } => work.extend([&mut **lower, &mut **upper, &mut **body]),
            }
        }
        expr
    }

    /// Appends the expression's immediate subexpressions to `out`: a work list, so that a walk
    /// over a deep expression needs no recursion.
    pub fn children<'e>(&'e self, out: &mut Vec<&'e Expr>) {
        match &self.kind {
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Builtin(_) | ExprKind::Var(_) | ExprKind::Result => {}
            ExprKind::Read { index, .. } => out.push(index),
            ExprKind::Unary { operand, .. }
            | ExprKind::Old(operand)
            | ExprKind::InRange { value: operand, .. }
            | ExprKind::PrivateIndex { index: operand, .. }
            | ExprKind::Ticket { cell: operand, .. } => out.push(operand),
            ExprKind::Binary { lhs, rhs, .. } => out.extend([&**lhs, &**rhs]),
            ExprKind::Cond { cond, then_value, else_value } => out.extend([&**cond, &**then_value, &**else_value]),
            ExprKind::Call { args, .. } => out.extend(args),
            ExprKind::Quantifier { range, body, .. } => out.extend([&**range, &**body]),
            ExprKind::Sum { lower, upper, body, .. } => out.extend([&**lower, &**upper, &**body]),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(BigInt),
    Bool(bool),
    Builtin(Builtin),
    Var(VarId),
    /// `a[i]`: a read of memory.
    Read {
        array: ArrayId,
        index: Box<Expr>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Cond {
        cond: Box<Expr>,
        then_value: Box<Expr>,
        else_value: Box<Expr>,
    },
    Call {
        function: FunctionId,
        args: Vec<Expr>,
    },
    Quantifier {
        quantifier: Quantifier,
        var: VarId,
        range: Box<Expr>,
        body: Box<Expr>,
    },
    /// `\sum(int j; lower <= j < upper; body)`: the sum of the integer `body` over the `j` in
    /// `[lower, upper)`, zero where the range is empty. The bounds do not mention `j`.
    Sum {
        var: VarId,
        lower: Box<Expr>,
        upper: Box<Expr>,
        body: Box<Expr>,
    },
    /// `\old(e)`: the value of `e` when the kernel started (every group and thread starts then).
    Old(Box<Expr>),
    /// `\result` in a pure function's postcondition.
    Result,
    /// The exact result of an operation on signed machine integers of `int` (C's `+`, `-`, `*`,
    /// `/`, `<<` in OpenCL or CUDA code): its value is `value`'s, and it is well defined only when
    /// that lies in the type's range, because signed overflow is undefined behaviour
    /// (`arith.overflow`). Unsigned operations wrap, and need no such node.
    InRange {
        value: Box<Expr>,
        int: MachineInt,
    },
    /// An index into a private array of C code, which lives in `length` private variables, one
    /// per cell: its value is `index`'s, and it is well defined only when `0 <= index < length`
    /// (`access.bounds`), because an access outside an array is undefined behaviour. With
    /// `length` 0 it is an access through the null pointer, never well defined.
    PrivateIndex {
        index: Box<Expr>,
        length: u32,
    },
    /// The value the thread's `site`-th increment of the counter `counter[cell]` returns (C's
    /// `atomic_inc`), a value of the counter's type `int`: GPUVerify's refined atomic abstraction.
    /// The increments of one counter cell return distinct values to distinct threads and sites,
    /// among the threads that share the cell (every thread for global memory, the group's for
    /// local memory): a function of the thread's ids known only to be injective. Made only where
    /// that holds of C's semantics (`crate::ticket` in the frontend's C lowering): nothing but
    /// these increments changes the cell while they run, each site runs at most once per thread,
    /// and the thread contract assumes the launch has no more increments than the type has values.
    Ticket {
        counter: ArrayId,
        cell: Box<Expr>,
        site: u32,
        int: MachineInt,
    },
}

/// An integer type of C: its width in bits, and whether it is signed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MachineInt {
    pub bits: u32,
    pub signed: bool,
}

impl MachineInt {
    /// The least and the greatest value of the type.
    pub fn bounds(self) -> (BigInt, BigInt) {
        if self.signed {
            let half = BigInt::from(1) << (self.bits - 1);
            (-half.clone(), half - 1)
        } else {
            (BigInt::from(0), (BigInt::from(1) << self.bits) - 1)
        }
    }

    /// The value of the type that `value` wraps to: equal to it modulo `2^bits`.
    pub fn wrap(self, value: &BigInt) -> BigInt {
        let modulus = BigInt::from(1) << self.bits;
        let (least, _) = self.bounds();
        least.clone() + ((value - &least) % &modulus + &modulus) % &modulus
    }

    /// How C writes the type: `int`, `unsigned int`, `long`, ...
    pub fn name(self) -> &'static str {
        match (self.bits, self.signed) {
            (8, true) => "char",
            (8, false) => "unsigned char",
            (16, true) => "short",
            (16, false) => "unsigned short",
            (32, true) => "int",
            (32, false) => "unsigned int",
            (64, true) => "long",
            (64, false) => "unsigned long",
            _ => "integer",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Not,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// Integer division truncating towards zero, as in C.
    Div,
    /// Remainder with the sign of the dividend, as C's `%`.
    Rem,
    /// Mathematical modulo: the result lies in `[0, |d|)`.
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Implies,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantifier {
    Forall,
    Exists,
}

/// A permission amount.
#[derive(Clone, Debug, PartialEq)]
pub enum Amount {
    /// An exact fraction in `(0, 1]`; `1` is write permission.
    Exact(BigRational),
    /// `fraction \ divisor`: an exact fraction in `(0, 1]` divided by an integer expression of
    /// the launch (sizes, parameters and literals), such as `write \ gsize`. Exact, and the same
    /// in every thread; `amount.positive` checks that the divisor is at least 1.
    Divided { fraction: BigRational, divisor: Expr },
    /// Some positive amount, as small as needed (a wildcard): enough to read.
    Read,
}

impl Amount {
    /// Whether the amount is exact (it adds up with others, and may complete a write), rather
    /// than a wildcard `read`.
    pub fn is_exact(&self) -> bool {
        !matches!(self, Amount::Read)
    }
}

/// `Perm(a[index], amount)`.
#[derive(Clone, Debug, PartialEq)]
pub struct PermAtom {
    pub array: ArrayId,
    pub index: Expr,
    pub amount: Amount,
}

/// A resource formula: permissions joined by separating conjunction, with pure facts as a special
/// case.
#[derive(Clone, Debug, PartialEq)]
pub struct Assertion {
    pub kind: AssertionKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AssertionKind {
    Pure(Expr),
    Perm(PermAtom),
    /// Separating conjunction, `*` or `**`.
    Star(Box<Assertion>, Box<Assertion>),
    /// `e -> R`: the resource `R` where `e` holds.
    Implies(Expr, Box<Assertion>),
    /// `e ? R1 : R2`.
    Cond(Expr, Box<Assertion>, Box<Assertion>),
    /// `(\forall* int v; range; R)`: the iterated separating conjunction.
    ForallStar {
        var: VarId,
        range: Expr,
        body: Box<Assertion>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_join_to_cover_both() {
        assert_eq!(Span::new(4, 9).to(Span::new(1, 5)), Span::new(1, 9));
        assert_eq!(Span::new(1, 2).to(Span::new(7, 8)), Span::new(1, 8));
    }

    #[test]
    fn values_wrap_into_their_machine_type() {
        let uint = MachineInt { bits: 32, signed: false };
        let int = MachineInt { bits: 32, signed: true };
        assert_eq!(uint.wrap(&BigInt::from(4294967296u64)), BigInt::from(0));
        assert_eq!(uint.wrap(&BigInt::from(-1)), BigInt::from(4294967295u64));
        assert_eq!(int.wrap(&BigInt::from(2147483648u64)), BigInt::from(-2147483648i64));
        assert_eq!(int.wrap(&BigInt::from(-5)), BigInt::from(-5));
    }

    #[test]
    fn fences_name_the_memories_they_cover() {
        let local_only = Fences { local: true, global: false };
        assert!(local_only.fences(Memory::Local));
        assert!(!local_only.fences(Memory::Global));
        assert!(!Fences::default().fences(Memory::Local));
    }

    #[test]
    fn a_restricted_launch_pins_the_sizes_of_the_kernels_axes() {
        let span = Span::new(0, 0);
        let mut kernel = Kernel {
            name: "k".into(),
            span,
            params: vec![],
            vars: vec![],
            arrays: vec![],
            kernel_contract: Some(Contract::default()),
            group_contract: None,
            thread_contract: Contract::default(),
            barriers: vec![],
            body: Block { stmts: vec![], span },
            dimensions: 2,
            candidate_invariants: vec![],
            unstated_claims: vec![],
            collectives: vec![],
        };
        kernel.restrict_launch(Some([2, 3, 1]), Some([4, 4, 2]), span);
        let pinned = |builtin| kernel.pinned_size(builtin).map(|value| value.to_string());
        assert_eq!(pinned(Builtin::Groups(Axis::X)).as_deref(), Some("2"));
        assert_eq!(pinned(Builtin::Groups(Axis::Y)).as_deref(), Some("3"));
        assert_eq!(pinned(Builtin::GroupSize(Axis::X)).as_deref(), Some("4"));
        // The `z` extent of a two-dimensional kernel multiplies into `y`.
        assert_eq!(pinned(Builtin::GroupSize(Axis::Y)).as_deref(), Some("8"));
        // Every level with a contract sees it.
        assert_eq!(kernel.kernel_contract.as_ref().map(|contract| contract.requires.len()), Some(4));
        assert_eq!(kernel.thread_contract.requires.len(), 4);
    }

    #[test]
    fn only_thread_and_local_ids_differ_within_a_group() {
        let specific: Vec<&str> =
            Builtin::ALL.iter().filter(|builtin| builtin.is_thread_specific()).map(|builtin| builtin.name()).collect();
        assert_eq!(specific, ["tid", "lid", "lid_x", "lid_y", "lid_z"]);
    }
}
