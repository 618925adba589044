//! One-token mutants of a kernel: each changes one token into a near neighbour (a literal by one,
//! an operator into its sibling, one id into another, `read` into `write`, one fence into the
//! other) or deletes it. Mutants of verified examples are realistic kernels with one small bug or
//! none, which is where a soundness hole hides.

use crate::pvl::lexer::{self, Token};

/// Every one-token mutant of the text, in the order of the tokens.
pub fn mutants(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (start, token, end) in lexer::lex(text).0 {
        let original = &text[start..end];
        let mut replacements = neighbours(&token, original);
        replacements.push(String::new());
        for replacement in replacements {
            found.push(format!("{}{replacement}{}", &text[..start], &text[end..]));
        }
    }
    found
}

/// The tokens a token may become.
fn neighbours(token: &Token, original: &str) -> Vec<String> {
    let swap = |choices: &[&str]| -> Vec<String> {
        choices.iter().filter(|choice| **choice != original).map(|choice| choice.to_string()).collect()
    };
    if let Ok(value) = original.parse::<i64>() {
        let mut values = vec![value + 1, value - 1, 0];
        values.retain(|candidate| *candidate >= 0 && *candidate != value);
        values.dedup();
        return values.into_iter().map(|value| value.to_string()).collect();
    }
    match original {
        "+" | "-" => swap(&["+", "-"]),
        "*" => swap(&["+"]),
        "/" | "%" | "mod" => swap(&["/", "%", "mod"]),
        "<" | "<=" | ">" | ">=" => swap(&["<", "<=", ">", ">="]),
        "==" | "!=" => swap(&["==", "!="]),
        "&&" | "||" => swap(&["&&", "||"]),
        "tid" | "lid" | "gid" => swap(&["tid", "lid", "gid"]),
        "tcount" | "gsize" => swap(&["tcount", "gsize"]),
        "read" | "write" => swap(&["read", "write"]),
        "local" | "global" => swap(&["local", "global"]),
        _ if matches!(token, Token::Ensures) => vec!["requires".into()],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mutant_changes_one_token() {
        let found = mutants("a[tid + 1] := 2;");
        assert!(found.contains(&"a[lid + 1] := 2;".to_string()), "{found:?}");
        assert!(found.contains(&"a[tid - 1] := 2;".to_string()), "{found:?}");
        assert!(found.contains(&"a[tid + 0] := 2;".to_string()), "{found:?}");
        assert!(found.contains(&"a[tid + 1] := 3;".to_string()), "{found:?}");
        assert!(found.contains(&"a[tid + 1] := 2".to_string()), "{found:?}");
        assert!(found.iter().all(|mutant| mutant != "a[tid + 1] := 2;"));
    }
}
