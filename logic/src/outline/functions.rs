//! The obligations of a pure function (`proofs/kernel.md`, E5): from its precondition, its body
//! is defined (callees' preconditions, divisors), every call on its cycle of calls decreases the
//! measure (so the recursion terminates and its unfolding is consistent), and its postconditions
//! follow from its body.

use super::checks::{Check, Place, Reads, Termination};
use super::Numbering;
use crate::recursion::{self, CallGraph};
use crate::{Expr, Function, FunctionId, Kernel, ObligationId};

/// The obligations of one pure function, in the order they are checked.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionOutline {
    pub function: FunctionId,
    /// Each precondition's definedness, assuming the ones before it.
    pub requires: Vec<Vec<Check>>,
    /// The measure its calls on its cycle must make smaller, where it is checked at all (it
    /// recurses, or a `decreases` clause is written), with its definedness.
    pub measure: Option<(Expr, Vec<Check>)>,
    pub body: Vec<Check>,
    /// Each postcondition: its definedness, and the obligation that it follows from the body.
    pub ensures: Vec<(Vec<Check>, usize)>,
}

/// The outlines of all functions of a program, numbered in order.
pub fn outlines(kernel: &Kernel, functions: &[Function], numbering: &mut Numbering) -> Vec<FunctionOutline> {
    let calls = CallGraph::of(functions);
    let measures: Vec<Option<Expr>> =
        (0..functions.len()).map(|index| recursion::measure(functions, &calls, FunctionId(index as u32))).collect();
    (0..functions.len())
        .map(|index| outline(kernel, functions, &calls, &measures, FunctionId(index as u32), numbering))
        .collect()
}

fn outline(
    kernel: &Kernel,
    functions: &[Function],
    calls: &CallGraph,
    measures: &[Option<Expr>],
    id: FunctionId,
    numbering: &mut Numbering,
) -> FunctionOutline {
    let function = &functions[id.index()];
    let measured = measures[id.index()].clone().filter(|_| calls.recursive(id) || function.decreases.is_some());
    // A call on the cycle compares its measure with the caller's; inside the measure itself no
    // such call may stand.
    let cycle: Vec<(FunctionId, Option<Expr>)> =
        calls.cycle(id).map(|member| (member, measures[member.index()].clone())).collect();
    let termination =
        |missing| calls.recursive(id).then(|| Termination { function: id, cycle: cycle.clone(), missing });
    let in_body = termination(match &measured {
        Some(_) => None,
        None => Some("the caller has no measure (no `decreases` clause and no int parameter) to compare with"),
    });
    let in_measure = termination(Some("a `decreases` clause may not call a function on its own cycle of calls"));
    let place = |termination| Place { kernel, functions, reads: Reads::Framed(ObligationId::AccessRead), termination };
    let mut requires = Vec::new();
    for requirement in &function.requires {
        let mut checks = Vec::new();
        place(in_body.as_ref()).checks(requirement, &[], &[], numbering, &mut checks);
        requires.push(checks);
    }
    // The measure's definedness is checked once the precondition holds.
    let mut measure_checks = Vec::new();
    if let Some(measure) = &measured {
        place(in_measure.as_ref()).checks(measure, &[], &[], numbering, &mut measure_checks);
    }
    let place = place(in_body.as_ref());
    let mut body = Vec::new();
    place.checks(&function.body, &[], &[], numbering, &mut body);
    let mut ensures = Vec::new();
    for clause in &function.ensures {
        let mut checks = Vec::new();
        place.checks(clause, &[], &[], numbering, &mut checks);
        let follows = numbering.add(
            ObligationId::FunctionPost,
            clause.span,
            format!("this postcondition of `{}` might not follow from its body", function.name),
        );
        ensures.push((checks, follows));
    }
    FunctionOutline {
        function: id,
        requires,
        measure: measured.map(|measure| (measure, measure_checks)),
        body,
        ensures,
    }
}
