//! OpenCL's images: `read_imagef(img, sampler, coord)` (and `read_imagei`, `read_imageui`,
//! `read_imageh`) and `write_imagef(img, coord, color)` (and the others).
//!
//! An image parameter is an array of pixels in global memory, one `int` cell for each, whose
//! length no annotation states ([`crate::c::tree`] spells the type so). A write puts an arbitrary
//! value in the cell of its coordinates, `x + W * (y + H * z)` with `W` and `H` the launch's
//! global sizes along `x` and `y`: one pixel is always one cell, so two threads that write one
//! pixel race, as two that write one cell do. Pixels beyond the launch's sizes may share a cell
//! (the image's own width is not known), which claims more races, never fewer. A
//! read gives arbitrary values (the sampler's filtering and addressing are in them) and touches no
//! cell: OpenCL C 1.2 reads only images the kernel does not write (`read_only`), so a read races
//! with nothing; a `read_write` image is refused where its type is read. The color a write
//! stores is evaluated, for the reads in it.

use super::{Lengths, Location, Lowerer, Place, Storage, Symbol};
use crate::c::ast;
use crate::c::integers::{self, CType};
use crate::pvl::ast as surface;
use lockstep_logic::{Axis, Builtin, Span};

/// The element type of what an image read gives: a vector of four of them.
pub(super) fn read_element(name: &str) -> Option<CType> {
    match name {
        "read_imagef" | "read_imageh" => Some(integers::FLOAT),
        "read_imagei" => Some(CType::Int(integers::INT)),
        "read_imageui" => Some(CType::Int(integers::UINT)),
        _ => None,
    }
}

/// Whether `name` writes a pixel.
pub(super) fn is_image_write(name: &str) -> bool {
    matches!(name, "write_imagef" | "write_imagei" | "write_imageui" | "write_imageh")
}

impl Lowerer<'_> {
    /// A component of an image read: any value of its type.
    pub(super) fn image_read(&mut self, name: &str, place: Place, span: Span) -> Option<integers::Value> {
        let element = read_element(name)?;
        self.arbitrary(element, Vec::new(), place, span)
    }

    /// `write_imagef(img, coord, color)`: the color's reads, then an arbitrary value in the
    /// pixel's cell.
    pub(super) fn image_write(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        let [image, coord, color] = args else {
            self.argument_count(name, 3, args.len(), span);
            return None;
        };
        let pixels = match &image.kind {
            ast::ExprKind::Name(image) => match self.lookup(image) {
                Some(Symbol::Array { storage: Storage::Memory(pixels), offset: None, .. }) => Some(pixels.clone()),
                _ => None,
            },
            _ => None,
        };
        let Some(pixels) = pixels else {
            self.unsupported(
                image.span,
                "an image other than a kernel's image parameter",
                "write the kernel's image parameter",
            );
            return None;
        };
        let mut stmts = Vec::new();
        let colors = self.shape(color).map_or(1, |shape| shape.width);
        for k in 0..colors {
            let component = self.project(color, k)?;
            let value = self.typed(&component, Place::Code, lengths)?;
            stmts.push(self.unused(value, span)?);
        }
        let axes = self.shape(coord).map_or(1, |shape| shape.width.min(3));
        // `x + W * (y + H * z)`, from the last axis in.
        let mut index: Option<surface::Expr> = None;
        for axis in (0..axes).rev() {
            let component = self.project(coord, axis)?;
            let value = self.value(&component, CType::Int(integers::INT), lengths)?;
            index = Some(match index {
                None => value,
                Some(outer) => {
                    let along = [Axis::X, Axis::Y, Axis::Z][axis as usize];
                    let groups = self.builtin(Builtin::Groups(along), span)?;
                    let size = self.builtin(Builtin::GroupSize(along), span)?;
                    let global = self.binary(surface::BinaryOp::Mul, groups, size, span)?;
                    let rows = self.binary(surface::BinaryOp::Mul, global, outer, span)?;
                    self.binary(surface::BinaryOp::Add, value, rows, span)?
                }
            });
        }
        let index = index?;
        let pixel = self.arbitrary(CType::Int(integers::INT), Vec::new(), Place::Code, span)?;
        let cell = (surface::Ident { name: pixels, span }, index, CType::Int(integers::INT));
        let write = self.write_value(Location::Memory(cell), pixel.expr, span)?;
        stmts.push(self.surface_stmt(write, span)?);
        Some(stmts)
    }
}
