//! Private memory: a thread's own arrays (`int t[4];`) and the private scalars whose address is
//! taken (`&x`). The surface language has no private arrays, and per-thread memory would need
//! permissions the user never wrote, so each cell is a private variable of its own (`t.0`, `t.1`,
//! ...), as a private vector's components are. An index that is a constant names its variable; any
//! other picks it by cases (`i == 0 ? t.0 : i == 1 ? t.1 : ...`), after the check that it lies in
//! the array (`access.bounds`: [`surface::ExprKind::PrivateIndex`]). So private arrays stay small
//! ([`PRIVATE_CELLS`]), and a loop forgets the cells it writes, as it forgets any variable.

use super::{Lengths, Lowerer, Place, Storage, Symbol};
use crate::c::ast;
use crate::c::integers::{CType, Value};
use crate::pvl::ast as surface;
use lockstep_logic::Span;
use num_traits::ToPrimitive;

/// The most cells a private array may have: an access by an index that is not a constant is
/// one case for each of them.
const PRIVATE_CELLS: u32 = 64;

impl Lowerer<'_> {
    /// `T t[n] = {...};` in a function: one private variable for each cell, holding its initial
    /// value (0 for a cell the list leaves out, as in C), or none without an initializer.
    pub(super) fn private_array(
        &mut self,
        declarator: &ast::Declarator,
        element: CType,
        ty_span: Span,
        init: Option<&ast::Expr>,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        let values = match init.map(|init| &init.kind) {
            Some(ast::ExprKind::InitList(values)) => Some(values),
            Some(_) => {
                self.unsupported(declarator.span, "this initializer of a private array", "write a list: `{1, 2, 3}`");
                return None;
            }
            None => None,
        };
        // The sizes, the first left 0 where the list gives it (`int t[][2] = {1, 2, 3, 4};`).
        let mut sizes = Vec::new();
        for (k, dimension) in declarator.dimensions.iter().enumerate() {
            let size = match (dimension, values) {
                (Some(size), _) => self.private_size(size, lengths)?,
                (None, Some(_)) if k == 0 => 0,
                (None, _) => {
                    self.unsupported(declarator.span, "a private array without a size", "give its size: `int t[4];`");
                    return None;
                }
            };
            sizes.push(size);
        }
        let mut leaves = Vec::new();
        if let Some(values) = values {
            if !flatten_list(values, &sizes, &mut leaves) {
                self.unsupported(
                    declarator.span,
                    "an initializer whose braces do not match the array's rows",
                    "brace each row, `{{1, 2}, {3, 4}}`, or none, `{1, 2, 3, 4}`",
                );
                return None;
            }
        }
        let row: usize = sizes.iter().skip(1).map(|size| *size as usize).product();
        if sizes.first() == Some(&0) {
            // As many rows as the list fills, the last one perhaps in part.
            sizes[0] = u32::try_from(leaves.len().div_ceil(row.max(1))).unwrap_or(u32::MAX);
        }
        let cells = sizes.iter().try_fold(1u32, |cells, size| cells.checked_mul(*size)).unwrap_or(u32::MAX);
        if cells == 0 || cells > PRIVATE_CELLS {
            self.unsupported(
                declarator.span,
                format!(
                    "a private array of {cells} cells (lockstep keeps 1 to {PRIVATE_CELLS} cells in private variables)"
                ),
                "keep larger arrays in local or global memory",
            );
            return None;
        }
        if leaves.len() > cells as usize {
            self.unsupported(
                declarator.span,
                "an initializer with more values than the array has cells",
                "give at most one value for each cell",
            );
            return None;
        }
        let base = self.local_name(&declarator.name.name);
        let mut names = Vec::new();
        let mut stmts = Vec::new();
        for k in 0..cells as usize {
            let init = match (values, leaves.get(k).copied().flatten()) {
                (None, _) => None,
                (Some(_), Some(value)) => Some(self.value(value, element, lengths)?),
                (Some(_), None) => Some(self.value(&ast::Expr::int(0, declarator.span), element, lengths)?),
            };
            let name = format!("{base}.{k}");
            stmts.extend(self.declared(name.clone(), element, ty_span, declarator.name.span, declarator.span, init)?);
            names.push(name);
        }
        let mut inner_dimensions = Vec::new();
        for size in &sizes[1..] {
            inner_dimensions.push(self.int(*size, declarator.span)?);
        }
        let storage = Storage::Private(names);
        let symbol = Symbol::Array { element, inner_dimensions, storage, offset: None, vector: None };
        self.declare(&declarator.name.name, symbol);
        Some(stmts)
    }

    /// The size of a private array's dimension: a constant.
    fn private_size(&mut self, size: &ast::Expr, lengths: &Lengths) -> Option<u32> {
        let value = self.typed(size, Place::Code, lengths)?;
        let constant = (value.interval.least == value.interval.greatest).then(|| value.interval.least.to_u32());
        match constant.flatten() {
            Some(size) => Some(size),
            None => {
                self.unsupported(
                    size.span,
                    "a private array whose size is not a constant",
                    "give its size as a number",
                );
                None
            }
        }
    }

    /// The value of cell `index` of a private array.
    pub(super) fn read_private(
        &mut self,
        cells: &[String],
        index: surface::Expr,
        element: CType,
        span: Span,
    ) -> Option<Value> {
        let name = |lowerer: &mut Lowerer, k: usize| lowerer.node(surface::ExprKind::Name(cells[k].clone()), span);
        let expr = match constant_cell(cells, &index) {
            Some(k) => name(self, k)?,
            None => {
                let cases = self.cases(cells, index, span)?;
                let mut picked = name(self, cells.len() - 1)?;
                for (k, case) in cases.into_iter().enumerate().rev() {
                    let then_value = name(self, k)?;
                    let kind = surface::ExprKind::Cond {
                        cond: Box::new(case),
                        then_value: Box::new(then_value),
                        else_value: Box::new(picked),
                    };
                    picked = self.node(kind, span)?;
                }
                picked
            }
        };
        Some(Value { expr, ty: element, interval: element.interval() })
    }

    /// The write of `value` (of the element type already) into cell `index` of a private array.
    pub(super) fn write_private(
        &mut self,
        cells: &[String],
        index: surface::Expr,
        value: surface::Expr,
        span: Span,
    ) -> Option<surface::StmtKind> {
        let assign = |k: usize| surface::StmtKind::Assign {
            target: surface::Ident { name: cells[k].clone(), span },
            value: value.clone(),
        };
        if cells.first().is_some_and(|cell| self.writes_constant(cell, span)) {
            return None;
        }
        if let Some(k) = constant_cell(cells, &index) {
            return Some(assign(k));
        }
        let mut otherwise: Option<Box<surface::Stmt>> = None;
        let mut picked = None;
        for (k, case) in self.cases(cells, index, span)?.into_iter().enumerate().rev() {
            let then_branch = Box::new(self.surface_stmt(assign(k), span)?);
            let kind = surface::StmtKind::If { cond: case, then_branch, else_branch: otherwise.take() };
            otherwise = Some(Box::new(self.surface_stmt(kind.clone(), span)?));
            picked = Some(kind);
        }
        picked
    }

    /// The condition of each cell's case, `index == k`. The first also checks that the index lies
    /// in the array, so that the check comes before any cell is picked.
    fn cases(&mut self, cells: &[String], index: surface::Expr, span: Span) -> Option<Vec<surface::Expr>> {
        let length = u32::try_from(cells.len()).ok()?;
        let checked = surface::ExprKind::PrivateIndex { index: Box::new(index.clone()), length };
        let mut subject = self.node(checked, span)?;
        let mut cases = Vec::new();
        for k in 0..cells.len() {
            let k = self.int(k, span)?;
            let next = index.clone();
            cases.push(self.binary(surface::BinaryOp::Eq, std::mem::replace(&mut subject, next), k, span)?);
        }
        Some(cases)
    }
}

/// The cell a constant index names, where it lies in the array.
fn constant_cell(cells: &[String], index: &surface::Expr) -> Option<usize> {
    let surface::ExprKind::Int(value) = &index.kind else { return None };
    value.to_usize().filter(|k| *k < cells.len())
}

/// The values of an initializer list for an array of dimensions `sizes` (the first one unused),
/// in the order of the cells: a braced list at the start of a row (`{{1, 2}, {3}}`) fills that
/// row, the rest of which is 0 (`None`), as in C; braces around a scalar hold one value. False
/// for braces elsewhere, or a row's list with more values than the row has cells, which lockstep
/// refuses rather than guess C's reading.
fn flatten_list<'e>(values: &'e [ast::Expr], sizes: &[u32], out: &mut Vec<Option<&'e ast::Expr>>) -> bool {
    let row: usize = sizes.iter().skip(1).map(|size| *size as usize).product();
    for value in values {
        match &value.kind {
            ast::ExprKind::InitList(inner) if sizes.len() > 1 => {
                let end = out.len() + row;
                if !out.len().is_multiple_of(row) || !flatten_list(inner, &sizes[1..], out) || out.len() > end {
                    return false;
                }
                out.resize(end, None);
            }
            ast::ExprKind::InitList(inner) => match inner.as_slice() {
                [single] if !matches!(single.kind, ast::ExprKind::InitList(_)) => out.push(Some(single)),
                _ => return false,
            },
            _ => out.push(Some(value)),
        }
    }
    true
}
