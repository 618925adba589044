//! An annotated example with its annotations stripped, as a user would write the kernel before
//! annotating it (issue 16): every permission, barrier contract, loop invariant and postcondition
//! goes; the thread precondition keeps its facts without their permission conjuncts (the launch's
//! shape, `\pointer_length(a) == n`, facts about the inputs such as `in[tid] == 1`), which say
//! what the kernel may assume, not how it is proved. A function's contract stays.

/// The text of `path` (PVL, or OpenCL C / CUDA by its extension) with its annotations stripped.
pub fn stripped(path: &str, text: &str) -> String {
    if path.ends_with(".cl") || path.ends_with(".cu") {
        strip_c(text)
    } else {
        strip_pvl(text)
    }
}

/// Whether `text` names a permission: `Perm`, `perm`, `\pointer`, `\pointer_index`.
fn names_permission(text: &str) -> bool {
    let words = ["Perm", "perm", "\\pointer", "\\pointer_index"];
    words.iter().any(|word| {
        text.match_indices(word).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            let boundary = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            boundary(if word.starts_with('\\') { None } else { before }) && boundary(after)
        })
    })
}

/// The parts of `body` split at its top-level `**` and ` * `.
fn conjuncts(body: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start, mut at) = (0i32, 0, 0);
    let bytes = body.as_bytes();
    while at < bytes.len() {
        match bytes[at] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ if depth == 0 && body[at..].starts_with("**") => {
                parts.push(&body[start..at]);
                at += 2;
                start = at;
                continue;
            }
            _ if depth == 0 && body[at..].starts_with(" * ") => {
                parts.push(&body[start..at]);
                at += 3;
                start = at;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    parts.push(&body[start..]);
    parts
}

/// A thread-contract clause as it stays: a `requires` of its facts, or nothing.
fn kept(clause: &str) -> Option<String> {
    let clause = clause.trim().trim_end_matches(';').trim();
    let (kind, body) = clause.split_once(char::is_whitespace)?;
    if kind != "requires" && kind != "context" {
        return None;
    }
    let parts: Vec<&str> = if names_permission(body) { conjuncts(body) } else { vec![body] };
    let facts: Vec<&str> = parts.iter().map(|part| part.trim()).filter(|part| !names_permission(part)).collect();
    (!facts.is_empty()).then(|| format!("requires {};", facts.join(" ** ")))
}

fn is_clause(line: &str) -> bool {
    let trimmed = line.trim_start();
    [
        "requires ",
        "ensures ",
        "context ",
        "invariant ",
        "loop_invariant ",
        "group ",
        "kernel requires",
        "kernel ensures",
    ]
    .iter()
    .any(|start| trimmed.starts_with(start))
}

fn strip_pvl(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at];
        let trimmed = line.trim();
        // `barrier(f) { clauses }` becomes `barrier(f);`.
        let block = trimmed
            .rfind(')')
            .filter(|&close| trimmed.starts_with("barrier(") && trimmed[close + 1..].trim_start().starts_with('{'));
        if let Some(close) = block {
            let indent = &line[..line.len() - line.trim_start().len()];
            out.push(format!("{indent}{};", &trimmed[..=close]));
            let tail = &trimmed[close + 1..];
            let mut depth = tail.matches('{').count() as i32 - tail.matches('}').count() as i32;
            while depth > 0 && at + 1 < lines.len() {
                at += 1;
                depth += lines[at].matches('{').count() as i32 - lines[at].matches('}').count() as i32;
            }
            at += 1;
            continue;
        }
        let kernel_clause = trimmed.starts_with("kernel requires") || trimmed.starts_with("kernel ensures");
        if is_clause(line) && (!trimmed.starts_with("kernel ") || kernel_clause) {
            let mut clause = line.to_string();
            while !clause.trim_end().ends_with(';') && at + 1 < lines.len() {
                at += 1;
                clause.push('\n');
                clause.push_str(lines[at]);
            }
            pending.push(clause);
            at += 1;
            continue;
        }
        if !pending.is_empty() {
            let indent = {
                let first = &pending[0];
                first[..first.len() - first.trim_start().len()].to_string()
            };
            if trimmed.starts_with("void main") {
                for clause in &pending {
                    let flat = clause.split_whitespace().collect::<Vec<_>>().join(" ");
                    out.extend(kept(&flat).map(|kept| format!("{indent}{kept}")));
                }
            } else if !(trimmed.starts_with("while") || trimmed.starts_with("for") || trimmed.starts_with("par")) {
                out.append(&mut pending);
            }
            pending.clear();
        }
        out.push(line.to_string());
        at += 1;
    }
    out.join("\n") + "\n"
}

/// The top-level clauses of an annotation comment's body, each up to its `;`.
fn clauses(body: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = body;
    while let Some(start) = ["requires", "ensures", "context"].iter().filter_map(|keyword| rest.find(keyword)).min() {
        let (mut depth, mut end) = (0i32, None);
        for (at, c) in rest[start..].char_indices() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ';' if depth == 0 => {
                    end = Some(start + at + 1);
                    break;
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        found.push(&rest[start..end]);
        rest = &rest[end..];
    }
    found
}

fn strip_c(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("/*@") {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find("@*/").map(|at| open + at + 3) else {
            rest = &rest[open..];
            break;
        };
        let after = rest[close..].trim_start();
        let before_kernel = ["__kernel", "__global__", "kernel", "extern"].iter().any(|start| after.starts_with(start));
        if before_kernel {
            let facts: Vec<String> = clauses(&rest[open + 3..close - 3])
                .into_iter()
                .filter_map(|clause| kept(&clause.split_whitespace().collect::<Vec<_>>().join(" ")))
                .collect();
            if !facts.is_empty() {
                out.push_str("/*@\n");
                for fact in facts {
                    out.push_str(&format!("  {fact}\n"));
                }
                out.push_str("@*/");
            }
        }
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permissions_go_and_facts_stay() {
        assert_eq!(kept("requires Perm(in[tid], read) * in[tid] == 1;").as_deref(), Some("requires in[tid] == 1;"));
        assert_eq!(kept("context \\ltid == 0 ==> Perm(&out[0], write);"), None);
        assert_eq!(kept("ensures out[tid] == 1;"), None);
        assert_eq!(kept("requires tcount == gsize;").as_deref(), Some("requires tcount == gsize;"));
        assert!(names_permission("perm(a[tid],100)") && !names_permission("permuted[tid] == 0"));
    }
}
