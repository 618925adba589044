//! The pure functions of a program (`proofs/kernel.md`, E5): each as an IVL function (with a
//! body, or axiomatised with fuel where it recurses) and a procedure that checks its obligations.

use super::expr;
use super::names;
use super::state::{conjunction, ivl_type, Encoder};
use crate::ivl::{self, BinaryOp, Binding, Declaration, Expr, Procedure, Stmt, StmtKind, Type};
use lockstep_logic::outline::FunctionOutline;
use std::collections::HashMap;

impl<'k> Encoder<'k> {
    /// A pure function (`proofs/kernel.md`, E5). Every IVL version takes a fuel argument first,
    /// so that calls look alike. A function that does not recurse (directly or through others) is
    /// an IVL function with a body, which the VC generator expands at its calls: no quantifier.
    /// A recursive one is unfolded with fuel: `f(succ(F), x) == body` where the calls in the body
    /// get fuel `F`, and `f(succ(F), x) == f(F, x)`, both triggered only on `f(succ(F), x)`, so
    /// each unfolding uses up one unit and the solver cannot loop. Its `ensures` are checked by a
    /// procedure of their own and assumed at every call.
    pub(super) fn function(&mut self, outline: &FunctionOutline) -> Vec<Declaration> {
        let id = outline.function;
        let function = &self.functions[id.index()];
        let params: Vec<Binding> = function
            .params
            .iter()
            .map(|&param| Binding::new(names::function_var(function, param), ivl_type(function.vars[param.index()].ty)))
            .collect();
        let with_fuel: Vec<Binding> =
            std::iter::once(Binding::new("fuel", Type::Int)).chain(params.iter().cloned()).collect();
        let application = |fuel: Expr| {
            Expr::Call(
                names::function(function),
                std::iter::once(fuel).chain(params.iter().map(|param| Expr::var(&param.name))).collect(),
            )
        };
        let bindings = HashMap::new();
        let inner = expr::FunctionContext {
            functions: self.functions,
            sums: &self.sums,
            function,
            bindings: &bindings,
            fuel: Expr::var("fuel"),
        };
        let precondition = conjunction(function.requires.iter().map(|requirement| inner.translate(requirement)));
        let forall = |trigger: Expr, body: Expr| Expr::Quantified {
            quantifier: ivl::Quantifier::Forall,
            bound: with_fuel.clone(),
            triggers: vec![vec![trigger]],
            body: Box::new(body),
        };
        let mut declarations = Vec::new();
        if self.calls.recursive(id) {
            let unfolded = application(Expr::Call(names::SUCC.into(), vec![Expr::var("fuel")]));
            declarations.push(Declaration::Function(ivl::Function {
                name: names::function(function),
                params: with_fuel.clone(),
                result: ivl_type(function.result),
                body: None,
            }));
            // The axioms hold only where `defined_f` is assumed: in the kernel's procedures, never in
            // the functions' own, which check the termination that makes them consistent (E5).
            let defined = Expr::var(names::defined(function));
            declarations.push(Declaration::Const(Binding::new(names::defined(function), Type::Bool)));
            let definition = Expr::binary(BinaryOp::Eq, unfolded.clone(), inner.translate(&function.body));
            declarations.push(Declaration::Axiom(Expr::binary(
                BinaryOp::Implies,
                defined.clone(),
                forall(unfolded.clone(), Expr::binary(BinaryOp::Implies, precondition.clone(), definition)),
            )));
            let irrelevance = Expr::binary(BinaryOp::Eq, unfolded.clone(), application(Expr::var("fuel")));
            declarations.push(Declaration::Axiom(Expr::binary(
                BinaryOp::Implies,
                defined,
                forall(unfolded, irrelevance),
            )));
        } else {
            declarations.push(Declaration::Function(ivl::Function {
                name: names::function(function),
                params: with_fuel.clone(),
                result: ivl_type(function.result),
                body: Some(inner.translate(&function.body)),
            }));
        }
        declarations.push(Declaration::Procedure(self.function_procedure(outline, &params)));
        declarations
    }

    /// The well-formedness of a pure function (E5), as its own procedure: from its precondition,
    /// its body is defined (callees' preconditions, divisors), a recursive call makes the measure
    /// (an int parameter) smaller and stays at or above zero, so the recursion terminates and its
    /// unfolding axioms are consistent, and its postconditions follow from its body. A
    /// postcondition is proved here and never assumed: callers see the body itself (expanded), so
    /// a wrong `ensures` cannot make anything else verify.
    fn function_procedure(&mut self, outline: &FunctionOutline, params: &[Binding]) -> Procedure {
        let function = &self.functions[outline.function.index()];
        let mut context =
            self.context([Expr::var(names::UNKNOWN), Expr::var(names::UNKNOWN), Expr::var(names::UNKNOWN)]);
        context.function = Some(function);
        for &param in &function.params {
            context.vars.insert(param, Expr::var(names::function_var(function, param)));
        }
        context.measure = outline.measure.as_ref().map(|(measure, _)| context.translate(measure));
        let mut stmts = Vec::new();
        for (requirement, checks) in function.requires.iter().zip(&outline.requires) {
            self.checks(&context, checks, &mut stmts);
            stmts.push(Stmt::new(StmtKind::Assume(context.translate(requirement))));
        }
        if let Some((_, checks)) = &outline.measure {
            self.checks(&context, checks, &mut stmts);
        }
        self.checks(&context, &outline.body, &mut stmts);
        let value = context.translate(&function.body);
        stmts.push(Stmt::new(StmtKind::Assign { target: names::RESULT.into(), indices: Vec::new(), value }));
        for (ensures, (checks, follows)) in function.ensures.iter().zip(&outline.ensures) {
            self.checks(&context, checks, &mut stmts);
            self.prove(&mut stmts, *follows, context.translate(ensures));
        }
        let locals = vec![Binding::new(names::RESULT, ivl_type(function.result))];
        let mut procedure = self.procedure(names::function_procedure(function), &[], Vec::new(), false, locals, stmts);
        procedure.params = params.to_vec();
        procedure
    }
}
