//! The preprocessor, on tokens: directives, conditional compilation and macro expansion.
//!
//! Kernels use a small part of the C preprocessor: `#define` constants (`#define N 64`), simple
//! function-like macros (`#define IDX(i, j) ((i) * W + (j))`), `#include` of the OpenCL or CUDA
//! header, `#pragma OPENCL EXTENSION`, and now and then `#ifdef`. lockstep implements that part on
//! the lexer's tokens, so that every token keeps its place in the file: an expanded macro's tokens
//! carry the span of the use that expanded it, and a macro argument's tokens their own. Headers
//! are known, not read: `#include <opencl.h>` and the CUDA headers declare only what lockstep
//! knows already (the ids, `barrier`, `__syncthreads`, `min`, ...). Stringising (`#`) and token
//! pasting (`##`) are refused, as are headers lockstep does not know.
//!
//! `__attribute__((...))` is dropped here too: it is a hint to the compiler, with no bearing on
//! what the kernel does.

use crate::c::lexer::{Spanned, Token};
use crate::diagnostics::{Code, Diagnostic};
use lockstep_logic::Span;
use num_bigint::BigInt;
use num_traits::{ToPrimitive, Zero};
use std::collections::HashMap;

/// The headers of OpenCL and CUDA that a kernel may include: lockstep knows what they declare.
const KNOWN_HEADERS: &[&str] = &[
    "opencl.h",
    "CL/cl.h",
    "cuda.h",
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "device_launch_parameters.h",
    "vector_types.h",
    "vector_functions.h",
    "stdio.h",
    "stdint.h",
    "stdbool.h",
];

/// The most tokens expansion may produce: a macro that doubles itself a few dozen times would
/// otherwise exhaust memory.
const MAX_EXPANDED_TOKENS: usize = 1_000_000;

/// Macros nested deeper than this in one expansion are refused (the limit also bounds recursion).
const MAX_EXPANSION_DEPTH: usize = 64;

#[derive(Clone, Debug)]
struct Macro {
    /// `None` for an object-like macro; the parameter names of a function-like one.
    params: Option<Vec<String>>,
    body: Vec<Token>,
}

struct Conditional {
    /// Whether the enclosing region is active.
    outer_active: bool,
    /// Whether some branch of this conditional was taken already.
    taken: bool,
    /// Whether the current branch is active.
    active: bool,
}

struct Preprocessor<'s> {
    source: &'s str,
    macros: HashMap<String, Macro>,
    diagnostics: Vec<Diagnostic>,
    produced: usize,
}

/// Runs the directives of a file and expands its macros: the tokens the parser reads (without
/// newlines), and the problems found.
pub fn preprocess(source: &str, tokens: Vec<Spanned>) -> (Vec<Spanned>, Vec<Diagnostic>) {
    let mut preprocessor = Preprocessor { source, macros: HashMap::new(), diagnostics: Vec::new(), produced: 0 };
    let mut conditionals: Vec<Conditional> = Vec::new();
    let mut output = Vec::new();
    let mut text_run: Vec<Spanned> = Vec::new();
    let mut index = 0;
    let mut at_line_start = true;
    while index < tokens.len() {
        let (start, token, end) = &tokens[index];
        if *token == Token::Newline {
            at_line_start = true;
            index += 1;
            continue;
        }
        let active = conditionals.last().is_none_or(|conditional| conditional.active);
        if at_line_start && *token == Token::Hash {
            let line_end = tokens[index..]
                .iter()
                .position(|(_, token, _)| *token == Token::Newline)
                .map_or(tokens.len(), |at| index + at);
            let directive = &tokens[index + 1..line_end];
            let span = Span::new(*start, directive.last().map_or(*end, |(_, _, end)| *end));
            preprocessor.expand_into(&std::mem::take(&mut text_run), &mut output);
            preprocessor.directive(directive, span, active, &mut conditionals);
            index = line_end;
            continue;
        }
        at_line_start = false;
        if active {
            text_run.push(tokens[index].clone());
        }
        index += 1;
    }
    preprocessor.expand_into(&text_run, &mut output);
    if !conditionals.is_empty() {
        let end = source.len();
        preprocessor.diagnostics.push(
            Diagnostic::error(
                Code::Preprocessor,
                "an `#if` without its `#endif`",
                Span::new(end, end),
                "the file ends here",
            )
            .with_help("close every `#if`, `#ifdef` and `#ifndef` with `#endif`"),
        );
    }
    let output = preprocessor.gpuverify_type_macros(drop_attributes(output));
    (output, preprocessor.diagnostics)
}

/// GPUVerify's specification macros whose arguments include types (its header declares them),
/// which the grammar cannot read as calls. `DECLARE_UF_BINARY(f, T1, T2, R);` declares a function
/// without a body, and becomes the prototype `R f(T1, T2);` (GPUVerify adds axioms about it from a
/// Boogie file, which lockstep does not read: its calls give arbitrary values); the others are
/// refused by name.
const UNINTERPRETED_FUNCTIONS: &[&str] = &["DECLARE_UF_UNARY", "DECLARE_UF_BINARY", "DECLARE_UF_TERNARY"];
const TYPE_MACROS: &[&str] = &["__read_permission", "__write_permission", "__array_snapshot"];

/// `R f(T1, T2)` from the arguments of `DECLARE_UF_BINARY(f, T1, T2, R)` (a name, then types),
/// each token keeping its place in the file; `None` if they are not that.
fn prototype(arguments: &[Spanned]) -> Option<Vec<Spanned>> {
    let parts: Vec<&[Spanned]> = arguments.split(|(_, token, _)| *token == Token::Comma).collect();
    let (name, rest) = parts.split_first()?;
    let (result, params) = rest.split_last()?;
    let [(start, Token::Ident(_), end)] = name else { return None };
    if params.is_empty() || params.iter().chain([result]).any(|part| part.is_empty()) {
        return None;
    }
    let punctuation = |token: Token| (*start, token, *end);
    let mut tokens: Vec<Spanned> = result.to_vec();
    tokens.push(name[0].clone());
    tokens.push(punctuation(Token::LParen));
    for (position, param) in params.iter().enumerate() {
        if position > 0 {
            tokens.push(punctuation(Token::Comma));
        }
        tokens.extend(param.iter().cloned());
    }
    tokens.push(punctuation(Token::RParen));
    Some(tokens)
}

/// Drops every `__attribute__((...))`.
fn drop_attributes(tokens: Vec<Spanned>) -> Vec<Spanned> {
    let mut kept = Vec::with_capacity(tokens.len());
    let mut index = 0;
    while index < tokens.len() {
        if tokens[index].1 == Token::Attribute
            && tokens.get(index + 1).is_some_and(|(_, token, _)| *token == Token::LParen)
        {
            index = matching_paren(&tokens, index + 1).map_or(tokens.len(), |close| close + 1);
            continue;
        }
        kept.push(tokens[index].clone());
        index += 1;
    }
    kept
}

/// The index of the `)` that closes the `(` at `open`.
fn matching_paren(tokens: &[Spanned], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (index, (_, token, _)) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(index);
                }
            }
            _ => {}
        }
    }
    None
}

impl Preprocessor<'_> {
    fn error(&mut self, message: impl Into<String>, span: Span, label: &str, help: &str) {
        self.diagnostics.push(Diagnostic::error(Code::Preprocessor, message, span, label).with_help(help));
    }

    fn unsupported(&mut self, message: impl Into<String>, span: Span, label: &str, help: &str) {
        self.diagnostics.push(Diagnostic::error(Code::Unsupported, message, span, label).with_help(help));
    }

    /// Rewrites each of GPUVerify's [`UNINTERPRETED_FUNCTIONS`] into a prototype, and drops each
    /// use of one of its [`TYPE_MACROS`] (through its `)` and a `;` after it) with a
    /// `kernel::unsupported` naming it.
    fn gpuverify_type_macros(&mut self, tokens: Vec<Spanned>) -> Vec<Spanned> {
        let mut kept = Vec::with_capacity(tokens.len());
        let mut index = 0;
        while index < tokens.len() {
            let (start, token, end) = &tokens[index];
            let opens = tokens.get(index + 1).is_some_and(|(_, token, _)| *token == Token::LParen);
            let name = match (token, opens) {
                (Token::Ident(name), true) => name.as_str(),
                _ => "",
            };
            if !UNINTERPRETED_FUNCTIONS.contains(&name) && !TYPE_MACROS.contains(&name) {
                kept.push(tokens[index].clone());
                index += 1;
                continue;
            }
            let close = matching_paren(&tokens, index + 1).unwrap_or(tokens.len() - 1);
            let span = Span::new(*start, tokens.get(close).map_or(*end, |(_, _, end)| *end));
            let prototype =
                UNINTERPRETED_FUNCTIONS.contains(&name).then(|| prototype(&tokens[index + 2..close])).flatten();
            match prototype {
                Some(prototype) => kept.extend(prototype),
                None => self.unsupported(
                    format!("GPUVerify's `{name}` is not supported"),
                    span,
                    "not supported",
                    "lockstep reads GPUVerify's `__requires`, `__ensures`, `__invariant`, `__assert`, `__assume`, `__implies`, `__enabled` and `DECLARE_UF_*`",
                ),
            }
            index = close + 1;
            if tokens.get(index).is_some_and(|(_, token, _)| *token == Token::Semi) {
                if kept.last().is_some_and(|(_, token, _)| *token == Token::RParen) {
                    kept.push(tokens[index].clone());
                }
                index += 1;
            }
        }
        kept
    }

    fn directive(&mut self, directive: &[Spanned], span: Span, active: bool, conditionals: &mut Vec<Conditional>) {
        let Some((_, first, _)) = directive.first() else { return };
        let name = match first {
            Token::If => "if",
            Token::Else => "else",
            Token::Ident(name) => name.as_str(),
            _ => "",
        };
        let rest = &directive[1..];
        match name {
            "ifdef" | "ifndef" => {
                let defined = matches!(rest.first(), Some((_, Token::Ident(name), _)) if self.macros.contains_key(name));
                let holds = defined == (name == "ifdef");
                conditionals.push(Conditional { outer_active: active, taken: holds, active: active && holds });
            }
            "if" => {
                let holds = active && self.condition(rest, span);
                conditionals.push(Conditional { outer_active: active, taken: holds, active: holds });
            }
            "elif" | "else" => match conditionals.last_mut() {
                Some(conditional) => {
                    let outer = conditional.outer_active;
                    let taken = conditional.taken;
                    let holds = !taken && outer && (name == "else" || self.condition(rest, span));
                    let conditional = conditionals.last_mut().expect("checked above");
                    conditional.active = holds;
                    conditional.taken = taken || holds;
                }
                None => self.error(format!("`#{name}` without `#if`"), span, "no `#if` is open here", "remove it, or open the conditional with `#if`, `#ifdef` or `#ifndef`"),
            },
            "endif" => {
                if conditionals.pop().is_none() {
                    self.error("`#endif` without `#if`", span, "no `#if` is open here", "remove it, or open the conditional with `#if`, `#ifdef` or `#ifndef`");
                }
            }
            _ if !active => {}
            "define" => self.define(rest, span),
            "undef" => {
                if let Some((_, Token::Ident(name), _)) = rest.first() {
                    self.macros.remove(name);
                }
            }
            "include" => self.include(span),
            "pragma" | "line" => {}
            "error" => {
                let text = self.source.get(span.start..span.end).unwrap_or("#error").to_string();
                self.error(format!("the file stops itself: {text}"), span, "`#error` in an active region", "the file's own `#if` conditions reject these settings");
            }
            _ => self.unsupported(
                format!("the directive `#{}` is not supported", self.source.get(span.start + 1..span.end).unwrap_or(name).split_whitespace().next().unwrap_or(name)),
                span,
                "unsupported directive",
                "lockstep's preprocessor knows `#define`, `#undef`, `#include` of the OpenCL and CUDA headers, `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`/`#endif`, `#pragma` and `#error`",
            ),
        }
    }

    fn define(&mut self, rest: &[Spanned], span: Span) {
        let Some((_, Token::Ident(name), name_end)) = rest.first() else {
            self.error("`#define` needs a name", span, "no macro name", "write `#define NAME value`");
            return;
        };
        let mut body_start = 1;
        let mut params = None;
        if let Some((open, Token::LParen, _)) = rest.get(1) {
            // A function-like macro has its `(` right after the name, without a space.
            if open == name_end {
                let close = rest.iter().position(|(_, token, _)| *token == Token::RParen);
                let Some(close) = close else {
                    self.error(
                        "the parameters of the macro are not closed",
                        span,
                        "no `)`",
                        "write `#define NAME(a, b) body`",
                    );
                    return;
                };
                let mut names = Vec::new();
                for (_, token, _) in &rest[2..close] {
                    match token {
                        Token::Ident(param) => names.push(param.clone()),
                        Token::Comma => {}
                        _ => {
                            self.unsupported(
                                "this macro's parameter list is not supported",
                                span,
                                "only names separated by commas",
                                "write the macro's parameters as plain names: `#define F(a, b) ...`",
                            );
                            return;
                        }
                    }
                }
                params = Some(names);
                body_start = close + 1;
            }
        }
        let body: Vec<Token> = rest[body_start..].iter().map(|(_, token, _)| token.clone()).collect();
        if body.contains(&Token::Hash) {
            self.unsupported(
                "`#` and `##` in a macro body are not supported",
                span,
                "stringising or token pasting",
                "write the tokens the macro should produce directly",
            );
            return;
        }
        self.macros.insert(name.clone(), Macro { params, body });
    }

    fn include(&mut self, span: Span) {
        let text = self.source.get(span.start..span.end).unwrap_or("");
        let header = text
            .split_once("include")
            .map(|(_, after)| after.trim().trim_matches(['<', '>', '"']).trim())
            .unwrap_or("");
        if !KNOWN_HEADERS.contains(&header) {
            self.unsupported(
                format!("`#include` of `{header}`: lockstep does not read other files"),
                span,
                "a header lockstep does not know",
                "lockstep knows the OpenCL and CUDA headers (`opencl.h`, `cuda.h`, `cuda_runtime.h`, ...) and reads no other file; put what the kernel needs from it into the file",
            );
        }
    }

    /// The value of an `#if` condition: macros expanded, `defined` answered, integer arithmetic.
    fn condition(&mut self, tokens: &[Spanned], span: Span) -> bool {
        // `defined NAME` and `defined(NAME)` are answered before expansion.
        let mut answered = Vec::new();
        let mut index = 0;
        while index < tokens.len() {
            if matches!(&tokens[index].1, Token::Ident(word) if word == "defined") {
                let (name, next) = match (tokens.get(index + 1), tokens.get(index + 2)) {
                    (Some((_, Token::LParen, _)), Some((_, Token::Ident(name), _))) => (Some(name), index + 4),
                    (Some((_, Token::Ident(name), _)), _) => (Some(name), index + 2),
                    _ => (None, index + 1),
                };
                let value = name.is_some_and(|name| self.macros.contains_key(name));
                answered.push((
                    tokens[index].0,
                    Token::Number((BigInt::from(u8::from(value)), false)),
                    tokens[index].2,
                ));
                index = next;
                continue;
            }
            answered.push(tokens[index].clone());
            index += 1;
        }
        let mut expanded = Vec::new();
        self.expand_into(&answered, &mut expanded);
        let mut evaluator = Evaluator { tokens: &expanded, next: 0 };
        match evaluator.conditional().filter(|_| evaluator.next == expanded.len()) {
            Some(value) => !value.is_zero(),
            None => {
                self.unsupported("this `#if` condition is not supported", span, "not an integer constant expression", "lockstep evaluates `#if` conditions of integer literals, macros, `defined` and C's arithmetic, comparison and logical operators");
                false
            }
        }
    }

    /// Expands the macros of a run of text into `output`.
    fn expand_into(&mut self, tokens: &[Spanned], output: &mut Vec<Spanned>) {
        let mut disabled = Vec::new();
        self.expand(tokens, &mut disabled, output, None);
    }

    /// Expands `tokens`; `site` is the span of the macro use being expanded, if any.
    fn expand(
        &mut self,
        tokens: &[Spanned],
        disabled: &mut Vec<String>,
        output: &mut Vec<Spanned>,
        site: Option<Span>,
    ) {
        let mut index = 0;
        while index < tokens.len() && self.produced < MAX_EXPANDED_TOKENS {
            let (start, token, end) = &tokens[index];
            let Token::Ident(name) = token else {
                self.push(output, tokens[index].clone());
                index += 1;
                continue;
            };
            let Some(definition) = self.macros.get(name).filter(|_| !disabled.contains(name)).cloned() else {
                self.push(output, tokens[index].clone());
                index += 1;
                continue;
            };
            if disabled.len() >= MAX_EXPANSION_DEPTH {
                let use_span = site.unwrap_or(Span::new(*start, *end));
                self.error(
                    format!("macro `{name}` expands too deeply"),
                    use_span,
                    "expanded here",
                    "macros nest at most 64 deep",
                );
                return;
            }
            let use_start = site.map_or(*start, |site| site.start);
            let (replacement, consumed, use_end) = match &definition.params {
                None => (self.at_site(&definition.body, use_start, site.map_or(*end, |site| site.end)), 1, *end),
                Some(params) => {
                    let Some(close) = tokens
                        .get(index + 1)
                        .filter(|(_, token, _)| *token == Token::LParen)
                        .and_then(|_| matching_paren(tokens, index + 1))
                    else {
                        // A function-like macro's name without arguments is just a name.
                        self.push(output, tokens[index].clone());
                        index += 1;
                        continue;
                    };
                    let use_end = site.map_or(tokens[close].2, |site| site.end);
                    let arguments = split_arguments(&tokens[index + 2..close]);
                    let arguments = if params.is_empty() && arguments.len() == 1 && arguments[0].is_empty() {
                        Vec::new()
                    } else {
                        arguments
                    };
                    if arguments.len() != params.len() {
                        self.error(
                            format!("macro `{name}` takes {} argument(s), given {}", params.len(), arguments.len()),
                            Span::new(*start, tokens[close].2),
                            "wrong number of arguments",
                            "give the macro one argument per parameter of its `#define`",
                        );
                        index = close + 1;
                        continue;
                    }
                    let mut expanded_arguments = Vec::new();
                    for argument in &arguments {
                        let mut expanded = Vec::new();
                        self.expand(argument, disabled, &mut expanded, site);
                        expanded_arguments.push(expanded);
                    }
                    let mut replacement = Vec::new();
                    for token in &definition.body {
                        match token {
                            Token::Ident(word) if params.contains(word) => {
                                let position = params.iter().position(|param| param == word).expect("checked");
                                replacement.extend(expanded_arguments[position].iter().cloned());
                            }
                            other => replacement.push((use_start, other.clone(), use_end)),
                        }
                    }
                    (replacement, close + 1 - index, use_end)
                }
            };
            disabled.push(name.clone());
            self.expand(&replacement, disabled, output, Some(Span::new(use_start, use_end)));
            disabled.pop();
            index += consumed;
        }
    }

    fn at_site(&self, body: &[Token], start: usize, end: usize) -> Vec<Spanned> {
        body.iter().map(|token| (start, token.clone(), end)).collect()
    }

    fn push(&mut self, output: &mut Vec<Spanned>, token: Spanned) {
        self.produced += 1;
        if self.produced == MAX_EXPANDED_TOKENS {
            let span = Span::new(token.0, token.2);
            self.error(
                "macro expansion produces too many tokens",
                span,
                "expanded here",
                "a macro that expands to itself several times grows without bound; simplify the macros",
            );
        }
        if self.produced < MAX_EXPANDED_TOKENS {
            output.push(token);
        }
    }
}

/// The arguments of a macro use, split at the commas outside parentheses.
fn split_arguments(tokens: &[Spanned]) -> Vec<Vec<Spanned>> {
    let mut arguments = vec![Vec::new()];
    let mut depth = 0usize;
    for spanned in tokens {
        match spanned.1 {
            Token::LParen | Token::LBracket | Token::LBrace => depth += 1,
            Token::RParen | Token::RBracket | Token::RBrace => depth = depth.saturating_sub(1),
            Token::Comma if depth == 0 => {
                arguments.push(Vec::new());
                continue;
            }
            _ => {}
        }
        arguments.last_mut().expect("never empty").push(spanned.clone());
    }
    arguments
}

/// An evaluator of `#if` conditions: C's integer operators by precedence climbing. A name left
/// after expansion is 0, as in C.
struct Evaluator<'t> {
    tokens: &'t [Spanned],
    next: usize,
}

impl Evaluator<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.next).map(|(_, token, _)| token)
    }

    fn eat(&mut self, token: &Token) -> bool {
        let found = self.peek() == Some(token);
        self.next += usize::from(found);
        found
    }

    fn conditional(&mut self) -> Option<BigInt> {
        let condition = self.binary(0)?;
        if !self.eat(&Token::Question) {
            return Some(condition);
        }
        let then_value = self.conditional()?;
        if !self.eat(&Token::Colon) {
            return None;
        }
        let else_value = self.conditional()?;
        Some(if condition.is_zero() { else_value } else { then_value })
    }

    fn binary(&mut self, min_precedence: u8) -> Option<BigInt> {
        let mut lhs = self.unary()?;
        loop {
            let Some(precedence) = self.peek().and_then(binary_precedence) else { return Some(lhs) };
            if precedence < min_precedence {
                return Some(lhs);
            }
            let operator = self.peek().cloned()?;
            self.next += 1;
            let rhs = self.binary(precedence + 1)?;
            lhs = apply(&operator, lhs, rhs)?;
        }
    }

    fn unary(&mut self) -> Option<BigInt> {
        let (_, token, _) = self.tokens.get(self.next)?;
        self.next += 1;
        match token {
            Token::Number((value, _)) | Token::CharNumber(value) => Some(value.clone()),
            Token::Ident(_) => Some(BigInt::zero()),
            Token::True => Some(BigInt::from(1)),
            Token::False => Some(BigInt::zero()),
            Token::Minus => self.unary().map(|value| -value),
            Token::Plus => self.unary(),
            Token::Bang => self.unary().map(|value| BigInt::from(u8::from(value.is_zero()))),
            Token::Tilde => self.unary().map(|value| -value - 1),
            Token::LParen => {
                let value = self.conditional()?;
                self.eat(&Token::RParen).then_some(value)
            }
            _ => None,
        }
    }
}

fn binary_precedence(token: &Token) -> Option<u8> {
    Some(match token {
        Token::OrOr => 1,
        Token::AndAnd => 2,
        Token::Pipe => 3,
        Token::Caret => 4,
        Token::Amp => 5,
        Token::EqEq | Token::NotEq => 6,
        Token::Lt | Token::Le | Token::Gt | Token::Ge => 7,
        Token::Shl | Token::Shr => 8,
        Token::Plus | Token::Minus => 9,
        Token::Star | Token::Slash | Token::Percent => 10,
        _ => return None,
    })
}

fn apply(operator: &Token, lhs: BigInt, rhs: BigInt) -> Option<BigInt> {
    let truth = |value: bool| BigInt::from(u8::from(value));
    Some(match operator {
        Token::OrOr => truth(!lhs.is_zero() || !rhs.is_zero()),
        Token::AndAnd => truth(!lhs.is_zero() && !rhs.is_zero()),
        Token::Pipe => lhs | rhs,
        Token::Caret => lhs ^ rhs,
        Token::Amp => lhs & rhs,
        Token::EqEq => truth(lhs == rhs),
        Token::NotEq => truth(lhs != rhs),
        Token::Lt => truth(lhs < rhs),
        Token::Le => truth(lhs <= rhs),
        Token::Gt => truth(lhs > rhs),
        Token::Ge => truth(lhs >= rhs),
        Token::Shl => lhs << rhs.to_usize().filter(|&shift| shift < 64)?,
        Token::Shr => lhs >> rhs.to_usize().filter(|&shift| shift < 64)?,
        Token::Plus => lhs + rhs,
        Token::Minus => lhs - rhs,
        Token::Star => lhs * rhs,
        // C's `/` and `%` truncate towards zero, as BigInt's do.
        Token::Slash if !rhs.is_zero() => lhs / rhs,
        Token::Percent if !rhs.is_zero() => lhs % rhs,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c::{lexer::lex, Dialect};

    fn run(source: &str) -> (Vec<Token>, Vec<Diagnostic>) {
        let (tokens, errors) = lex(source, Dialect::OpenCl);
        assert!(errors.is_empty());
        let (tokens, diagnostics) = preprocess(source, tokens);
        (tokens.into_iter().map(|(_, token, _)| token).collect(), diagnostics)
    }

    fn spelled(tokens: &[Token]) -> String {
        tokens
            .iter()
            .map(|token| match token {
                Token::Ident(name) => name.clone(),
                Token::Number((value, _)) => value.to_string(),
                other => other.spelling().to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn object_and_function_macros_expand() {
        let (tokens, diagnostics) = run("#define W 8\n#define IDX(i, j) ((i) * W + (j))\nx = IDX(a + 1, b);\n");
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(spelled(&tokens), "x = ( ( a + 1 ) * 8 + ( b ) ) ;");
    }

    #[test]
    fn a_macro_does_not_expand_inside_itself() {
        let (tokens, _) = run("#define tid tid + 1\ntid");
        assert_eq!(spelled(&tokens), "tid + 1");
    }

    #[test]
    fn conditionals_keep_the_taken_branch() {
        let source = "#define SMALL\n#ifdef SMALL\n#define N 4\n#else\n#define N 64\n#endif\n#if N % 2 == 0 && defined(SMALL)\nyes\n#elif 1\nno\n#endif\nN";
        let (tokens, diagnostics) = run(source);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(spelled(&tokens), "yes 4");
    }

    #[test]
    fn known_headers_are_accepted_and_others_refused() {
        assert!(run("#include <opencl.h>\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\nx").1.is_empty());
        let (_, diagnostics) = run("#include \"mine.h\"\nx");
        assert_eq!(diagnostics[0].code, Code::Unsupported);
        assert!(diagnostics[0].message.contains("mine.h"), "{}", diagnostics[0].message);
    }

    #[test]
    fn expanded_tokens_point_at_the_use() {
        let source = "#define N 4\nint a[N];";
        let (tokens, _) = lex(source, Dialect::OpenCl);
        let (tokens, _) = preprocess(source, tokens);
        let four = tokens.iter().find(|(_, token, _)| matches!(token, Token::Number(_))).unwrap();
        assert_eq!(&source[four.0..four.2], "N");
    }

    #[test]
    fn attributes_are_dropped() {
        let (tokens, _) = run("__attribute__((reqd_work_group_size(64, 1, 1))) kernel");
        assert_eq!(tokens, [Token::Kernel]);
    }

    #[test]
    fn gpuverify_macros_over_types_are_prototypes_or_refused_by_name() {
        let (tokens, diagnostics) = run("DECLARE_UF_BINARY(f, unsigned short, int, int); x = 1;");
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(spelled(&tokens), "int f ( unsigned short , int ) ; x = 1 ;");
        let (tokens, diagnostics) = run("__array_snapshot(b, a); x = 1;");
        assert_eq!(spelled(&tokens), "x = 1 ;");
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].code, Code::Unsupported);
        assert!(diagnostics[0].message.contains("__array_snapshot"), "{}", diagnostics[0].message);
    }

    #[test]
    fn self_doubling_macros_stop() {
        let mut source = String::from("#define A0 x x\n");
        for level in 1..40 {
            source.push_str(&format!("#define A{level} A{} A{}\n", level - 1, level - 1));
        }
        source.push_str("A39");
        let (tokens, diagnostics) = run(&source);
        assert!(tokens.len() < MAX_EXPANDED_TOKENS);
        assert!(!diagnostics.is_empty());
    }
}
