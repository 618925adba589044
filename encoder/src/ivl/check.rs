//! Name resolution and type checking of IVL programs, with Boogie's rules: every name declared once
//! per scope, no mixing of `int` and `real`, parameters read-only, a global assigned (or changed by
//! a call) only where the procedure's `modifies` lists it, and `old` only in postconditions and
//! bodies. A program that passes can be given to the VC generator without further checks.

use super::*;
use std::collections::HashMap;

/// A type error, at the position of the enclosing declaration, statement or clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeError {
    pub position: Position,
    pub message: String,
}

impl std::fmt::Display for TypeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.position.line, self.position.column, self.message)
    }
}

/// Checks a whole program; all errors are returned, in order.
pub fn program(program: &Program) -> Result<(), Vec<TypeError>> {
    let mut checker =
        Checker { errors: Vec::new(), globals: HashMap::new(), functions: HashMap::new(), procedures: HashMap::new() };
    checker.declare_globals(program);
    for (index, declaration) in program.declarations.iter().enumerate() {
        checker.declaration(declaration, program.position(index));
    }
    if checker.errors.is_empty() {
        Ok(())
    } else {
        Err(checker.errors)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Const,
    Global,
    Param,
    Local,
    Bound,
}

struct Checker<'p> {
    errors: Vec<TypeError>,
    globals: HashMap<&'p str, (Kind, &'p Type)>,
    functions: HashMap<&'p str, &'p Function>,
    procedures: HashMap<&'p str, &'p Procedure>,
}

/// What an expression may use where it stands.
#[derive(Clone, Copy)]
struct Place {
    old: bool,
    position: Position,
}

struct Scope<'p> {
    frames: Vec<HashMap<String, (Kind, Type)>>,
    modifies: &'p [String],
}

impl Scope<'_> {
    fn lookup(&self, name: &str) -> Option<(Kind, Type)> {
        self.frames.iter().rev().find_map(|frame| frame.get(name).cloned())
    }
}

impl<'p> Checker<'p> {
    fn error(&mut self, position: Position, message: impl Into<String>) {
        self.errors.push(TypeError { position, message: message.into() });
    }

    fn declare_globals(&mut self, program: &'p Program) {
        for (index, declaration) in program.declarations.iter().enumerate() {
            let (name, clash) = match declaration {
                Declaration::Const(binding) => {
                    (binding.name.as_str(), self.globals.insert(&binding.name, (Kind::Const, &binding.ty)).is_some())
                }
                Declaration::Var(binding) => {
                    (binding.name.as_str(), self.globals.insert(&binding.name, (Kind::Global, &binding.ty)).is_some())
                }
                Declaration::Function(function) => {
                    (function.name.as_str(), self.functions.insert(&function.name, function).is_some())
                }
                Declaration::Procedure(procedure) => {
                    (procedure.name.as_str(), self.procedures.insert(&procedure.name, procedure).is_some())
                }
                Declaration::Axiom(_) | Declaration::Lemma(_) => continue,
            };
            if clash {
                self.error(program.position(index), format!("`{name}` is declared twice"));
            }
        }
    }

    fn declaration(&mut self, declaration: &'p Declaration, position: Position) {
        let top = Place { old: false, position };
        match declaration {
            Declaration::Const(_) | Declaration::Var(_) => {}
            Declaration::Axiom(expr) | Declaration::Lemma(expr) => {
                let mut scope = Scope { frames: vec![HashMap::new()], modifies: &[] };
                self.expect(&mut scope, top, expr, &Type::Bool);
            }
            Declaration::Function(function) => {
                let mut frame = HashMap::new();
                for param in function.params.iter().filter(|param| !param.name.is_empty()) {
                    if frame.insert(param.name.clone(), (Kind::Param, param.ty.clone())).is_some() {
                        self.error(
                            top.position,
                            format!("parameter `{}` of `{}` is declared twice", param.name, function.name),
                        );
                    }
                }
                if let Some(body) = &function.body {
                    let mut scope = Scope { frames: vec![frame], modifies: &[] };
                    self.expect(&mut scope, top, body, &function.result);
                }
            }
            Declaration::Procedure(procedure) => self.procedure(procedure),
        }
    }

    fn procedure(&mut self, procedure: &'p Procedure) {
        let position = procedure.position;
        for name in &procedure.modifies {
            if !matches!(self.globals.get(name.as_str()), Some((Kind::Global, _))) {
                self.error(position, format!("`modifies {name}`: `{name}` is not a global variable"));
            }
        }
        let mut frame = HashMap::new();
        let locals = procedure.body.iter().flat_map(|body| body.locals.iter().map(|local| (local, Kind::Local)));
        let params = procedure.params.iter().map(|param| (param, Kind::Param));
        let returns = procedure.returns.iter().map(|ret| (ret, Kind::Local));
        for (binding, kind) in params.chain(returns).chain(locals) {
            if frame.insert(binding.name.clone(), (kind, binding.ty.clone())).is_some() {
                self.error(position, format!("`{}` is declared twice in `{}`", binding.name, procedure.name));
            }
        }
        let mut scope = Scope { frames: vec![frame], modifies: &procedure.modifies };
        for spec in &procedure.requires {
            self.expect(&mut scope, Place { old: false, position: spec.position }, &spec.expr, &Type::Bool);
            self.proved_by(spec, &procedure.name);
        }
        for spec in &procedure.ensures {
            self.expect(&mut scope, Place { old: true, position: spec.position }, &spec.expr, &Type::Bool);
            if !spec.proved_by.is_empty() {
                self.error(spec.position, "`{:proved_by}` belongs on a `free requires`");
            }
        }
        if let Some(body) = &procedure.body {
            self.stmts(&mut scope, &body.stmts);
        }
    }

    /// A `{:proved_by}` requirement is free and names other procedures with bodies, which
    /// [`crate::run`] verifies first.
    fn proved_by(&mut self, spec: &Spec, procedure: &str) {
        if !spec.proved_by.is_empty() && !spec.free {
            self.error(spec.position, "`{:proved_by}` belongs on a `free requires`");
        }
        for name in &spec.proved_by {
            match self.procedures.get(name.as_str()) {
                Some(prover) if prover.body.is_some() && name != procedure => {}
                _ => self.error(
                    spec.position,
                    format!("`{{:proved_by \"{name}\"}}`: `{name}` is not another procedure with a body"),
                ),
            }
        }
    }

    fn stmts(&mut self, scope: &mut Scope<'p>, stmts: &'p [Stmt]) {
        for stmt in stmts {
            self.stmt(scope, stmt);
        }
    }

    /// The type of a variable that may be assigned here, or an error.
    fn assignable(&mut self, scope: &Scope<'p>, name: &str, position: Position) -> Option<Type> {
        match scope.lookup(name) {
            Some((Kind::Local, ty)) => return Some(ty),
            Some((Kind::Param, _)) => self.error(position, format!("parameter `{name}` cannot be assigned")),
            Some(_) => self.error(position, format!("`{name}` cannot be assigned")),
            None => match self.globals.get(name) {
                Some((Kind::Global, ty)) if scope.modifies.iter().any(|modified| modified == name) => {
                    return Some((*ty).clone())
                }
                Some((Kind::Global, _)) => {
                    self.error(position, format!("global `{name}` is assigned but not listed in `modifies`"))
                }
                Some(_) => self.error(position, format!("constant `{name}` cannot be assigned")),
                None => self.error(position, format!("unknown variable `{name}`")),
            },
        }
        None
    }

    fn stmt(&mut self, scope: &mut Scope<'p>, stmt: &'p Stmt) {
        let place = Place { old: true, position: stmt.position };
        match &stmt.kind {
            StmtKind::Assign { target, indices, value } => {
                let Some(mut ty) = self.assignable(scope, target, stmt.position) else {
                    return;
                };
                for index in indices {
                    let Type::Map(domain, range) = ty else {
                        self.error(stmt.position, format!("`{target}` is indexed but is not a map"));
                        return;
                    };
                    self.expect(scope, place, index, &domain);
                    ty = *range;
                }
                self.expect(scope, place, value, &ty);
            }
            StmtKind::Havoc(names) => {
                for name in names {
                    self.assignable(scope, name, stmt.position);
                }
            }
            StmtKind::Assume(expr) | StmtKind::Assert { expr, .. } => self.expect(scope, place, expr, &Type::Bool),
            StmtKind::If { cond, then_branch, else_branch } => {
                if let Some(cond) = cond {
                    self.expect(scope, place, cond, &Type::Bool);
                }
                self.stmts(scope, then_branch);
                self.stmts(scope, else_branch);
            }
            StmtKind::While { cond, invariants, body } => {
                if let Some(cond) = cond {
                    self.expect(scope, place, cond, &Type::Bool);
                }
                for invariant in invariants {
                    self.expect(scope, Place { old: true, position: invariant.position }, &invariant.expr, &Type::Bool);
                    if !invariant.proved_by.is_empty() {
                        self.error(invariant.position, "`{:proved_by}` belongs on a `free requires`");
                    }
                }
                self.stmts(scope, body);
            }
            StmtKind::Call { targets, procedure, args } => self.call(scope, stmt.position, targets, procedure, args),
        }
    }

    fn call(&mut self, scope: &mut Scope<'p>, position: Position, targets: &[String], name: &str, args: &'p [Expr]) {
        let Some(&callee) = self.procedures.get(name) else {
            self.error(position, format!("unknown procedure `{name}`"));
            return;
        };
        if callee.params.len() != args.len() || callee.returns.len() != targets.len() {
            self.error(
                position,
                format!(
                    "`{name}` takes {} arguments and returns {} values, but the call has {} and {}",
                    callee.params.len(),
                    callee.returns.len(),
                    args.len(),
                    targets.len()
                ),
            );
            return;
        }
        let place = Place { old: true, position };
        for (arg, param) in args.iter().zip(&callee.params) {
            self.expect(scope, place, arg, &param.ty);
        }
        for (target, ret) in targets.iter().zip(&callee.returns) {
            if let Some(ty) = self.assignable(scope, target, position) {
                if ty != ret.ty {
                    self.error(position, format!("`{target}` has type {ty}, but `{name}` returns {}", ret.ty));
                }
            }
        }
        for global in &callee.modifies {
            if !scope.modifies.contains(global) {
                self.error(
                    position,
                    format!("the call may change `{global}`, which the caller does not list in `modifies`"),
                );
            }
        }
    }

    fn expect(&mut self, scope: &mut Scope<'p>, place: Place, expr: &'p Expr, expected: &Type) {
        if let Some(found) = self.infer(scope, place, expr) {
            if &found != expected {
                self.error(place.position, format!("expected {expected}, found {found} in `{expr}`"));
            }
        }
    }

    /// The type of an expression, or `None` after reporting why it has none.
    fn infer(&mut self, scope: &mut Scope<'p>, place: Place, expr: &'p Expr) -> Option<Type> {
        let position = place.position;
        match expr {
            Expr::Int(_) => Some(Type::Int),
            Expr::Real(_) => Some(Type::Real),
            Expr::Bool(_) => Some(Type::Bool),
            Expr::Var(name) => match scope
                .lookup(name)
                .map(|(_, ty)| ty)
                .or_else(|| self.globals.get(name.as_str()).map(|(_, ty)| (*ty).clone()))
            {
                Some(ty) => Some(ty),
                None => {
                    self.error(position, format!("unknown name `{name}`"));
                    None
                }
            },
            Expr::Unary(UnaryOp::Not, operand) => {
                self.expect(scope, place, operand, &Type::Bool);
                Some(Type::Bool)
            }
            Expr::Unary(UnaryOp::Neg, operand) => {
                let ty = self.infer(scope, place, operand)?;
                self.numeric(position, &ty, expr)
            }
            Expr::Binary(op, lhs, rhs) => self.binary(scope, place, *op, lhs, rhs, expr),
            Expr::Select(map, index) => match self.infer(scope, place, map)? {
                Type::Map(domain, range) => {
                    self.expect(scope, place, index, &domain);
                    Some(*range)
                }
                other => {
                    self.error(position, format!("`{map}` has type {other} and cannot be indexed"));
                    None
                }
            },
            Expr::Store(map, index, value) => match self.infer(scope, place, map)? {
                ty @ Type::Map(..) => {
                    let Type::Map(domain, range) = &ty else { unreachable!() };
                    self.expect(scope, place, index, domain);
                    self.expect(scope, place, value, range);
                    Some(ty)
                }
                other => {
                    self.error(position, format!("`{map}` has type {other} and cannot be updated"));
                    None
                }
            },
            Expr::Call(name, args) if name == "real" && !self.functions.contains_key("real") => {
                let [arg] = args.as_slice() else {
                    self.error(position, "`real` takes one argument");
                    return None;
                };
                self.expect(scope, place, arg, &Type::Int);
                Some(Type::Real)
            }
            Expr::Call(name, args) => {
                let Some(&function) = self.functions.get(name.as_str()) else {
                    self.error(position, format!("unknown function `{name}`"));
                    return None;
                };
                if function.params.len() != args.len() {
                    self.error(
                        position,
                        format!("`{name}` takes {} arguments, but {} were given", function.params.len(), args.len()),
                    );
                    return None;
                }
                for (arg, param) in args.iter().zip(&function.params) {
                    self.expect(scope, place, arg, &param.ty);
                }
                Some(function.result.clone())
            }
            Expr::IfThenElse(cond, then_value, else_value) => {
                self.expect(scope, place, cond, &Type::Bool);
                let ty = self.infer(scope, place, then_value)?;
                self.expect(scope, place, else_value, &ty);
                Some(ty)
            }
            Expr::Old(value) => {
                if !place.old {
                    self.error(position, "`old` is only allowed in postconditions and procedure bodies");
                    return None;
                }
                self.infer(scope, place, value)
            }
            Expr::Lambda { bound, body } => {
                // As for quantifiers: Boogie refuses a bound variable that shadows the procedure's.
                if scope.lookup(&bound.name).is_some_and(|(kind, _)| kind != Kind::Bound) {
                    self.error(
                        position,
                        format!("the bound variable `{}` shadows a variable of the procedure", bound.name),
                    );
                }
                scope.frames.push(std::iter::once((bound.name.clone(), (Kind::Bound, bound.ty.clone()))).collect());
                let body_type = self.infer(scope, place, body);
                scope.frames.pop();
                Some(Type::map(bound.ty.clone(), body_type?))
            }
            Expr::Quantified { bound, triggers, body, .. } => {
                // Boogie refuses a bound variable that shadows a local, a parameter or a result, so
                // a program that passes here also passes real Boogie.
                for binding in bound {
                    let local = scope.lookup(&binding.name).is_some_and(|(kind, _)| kind != Kind::Bound);
                    if local {
                        self.error(
                            position,
                            format!("the bound variable `{}` shadows a variable of the procedure", binding.name),
                        );
                    }
                }
                let frame =
                    bound.iter().map(|binding| (binding.name.clone(), (Kind::Bound, binding.ty.clone()))).collect();
                scope.frames.push(frame);
                for term in triggers.iter().flatten() {
                    self.infer(scope, place, term);
                }
                self.expect(scope, place, body, &Type::Bool);
                scope.frames.pop();
                Some(Type::Bool)
            }
        }
    }

    fn numeric(&mut self, position: Position, ty: &Type, expr: &Expr) -> Option<Type> {
        if matches!(ty, Type::Int | Type::Real) {
            Some(ty.clone())
        } else {
            self.error(position, format!("expected int or real, found {ty} in `{expr}`"));
            None
        }
    }

    fn binary(
        &mut self,
        scope: &mut Scope<'p>,
        place: Place,
        op: BinaryOp,
        lhs: &'p Expr,
        rhs: &'p Expr,
        expr: &Expr,
    ) -> Option<Type> {
        use BinaryOp::*;
        match op {
            And | Or | Implies | Iff => {
                self.expect(scope, place, lhs, &Type::Bool);
                self.expect(scope, place, rhs, &Type::Bool);
                Some(Type::Bool)
            }
            Div | Mod => {
                self.expect(scope, place, lhs, &Type::Int);
                self.expect(scope, place, rhs, &Type::Int);
                Some(Type::Int)
            }
            RealDiv => {
                self.expect(scope, place, lhs, &Type::Real);
                self.expect(scope, place, rhs, &Type::Real);
                Some(Type::Real)
            }
            Eq | Ne => {
                let ty = self.infer(scope, place, lhs)?;
                self.expect(scope, place, rhs, &ty);
                Some(Type::Bool)
            }
            Add | Sub | Mul | Lt | Le | Gt | Ge => {
                let ty = self.infer(scope, place, lhs)?;
                let ty = self.numeric(place.position, &ty, expr)?;
                self.expect(scope, place, rhs, &ty);
                Some(if matches!(op, Add | Sub | Mul) { ty } else { Type::Bool })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(text: &str) -> Vec<String> {
        let program = parse::program(text).expect("parses");
        match super::program(&program) {
            Ok(()) => vec![],
            Err(errors) => errors.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn a_well_typed_program_passes() {
        let text = "var H: [int]int;\nfunction f(x: int): real;\nprocedure p(i: int) returns (r: real)\n  modifies H;\n  ensures r == f(i) && H[i] == old(H[i]) + 1;\n{\n  H[i] := H[i] + 1;\n  r := f(i);\n}\n";
        assert_eq!(errors(text), Vec::<String>::new());
    }

    #[test]
    fn boogie_rules_are_enforced() {
        assert_eq!(errors("procedure p(x: int) { x := 1; }"), ["1:23: parameter `x` cannot be assigned"]);
        assert_eq!(
            errors("var g: int;\nprocedure p() { g := 1; }"),
            ["2:17: global `g` is assigned but not listed in `modifies`"]
        );
        assert_eq!(errors("procedure p() { assert 1 + 1.0 > 0; }"), ["1:17: expected int, found real in `1.0`"]);
        assert_eq!(
            errors("procedure p(x: int) requires old(x) > 0; { }"),
            ["1:21: `old` is only allowed in postconditions and procedure bodies"]
        );
        assert_eq!(errors("procedure p() { call q(); }"), ["1:17: unknown procedure `q`"]);
        assert_eq!(errors("const c: int;\nvar c: int;"), ["2:1: `c` is declared twice"]);
        assert_eq!(
            errors("procedure p(x: int) { assert (forall x: int :: x == x); }"),
            ["1:23: the bound variable `x` shadows a variable of the procedure"]
        );
        assert_eq!(errors("const c: int;\naxiom c + 1;"), ["2:1: expected bool, found int in `(c + 1)`"]);
    }
}
