//! "did you mean ...?" for unknown keys, names and units (issue 11, item 4).
//!
//! The candidates nearest by Damerau-Levenshtein distance (a transposition of two adjacent
//! characters counts as one edit: `windw`, `tpc`, `Mbsp`, `pei`), if close enough to be a
//! likely typo: at most one edit for names of up to five characters, at most a third of the
//! length above that. Every candidate at the smallest distance is offered, not the first one
//! the registry happens to list (issue 24, item 10: `pei` suggested only `pi`); among them a
//! transposition (the same letters in another order) comes first, the commonest slip of a
//! typist.

/// The candidates `word` is most likely a typo of, best first: all at the smallest distance,
/// those with the same letters as `word` (a transposition) before the others, then in the
/// order given. Empty when none is close enough.
pub fn nearest_all<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    let mut close: Vec<(usize, bool, &str)> = candidates
        .into_iter()
        .map(|c| {
            let d = strsim::damerau_levenshtein(word, c);
            (d, !same_letters(word, c), c)
        })
        .filter(|&(d, _, _)| d <= limit)
        .collect();
    let Some(best) = close.iter().map(|&(d, _, _)| d).min() else {
        return Vec::new();
    };
    close.retain(|&(d, _, _)| d == best);
    // Stable: candidates equally good keep the order they were given in.
    close.sort_by_key(|&(_, not_transposed, _)| not_transposed);
    let mut out: Vec<&str> = Vec::with_capacity(close.len());
    for (_, _, c) in close {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Whether `a` and `b` hold the same characters, in any order.
fn same_letters(a: &str, b: &str) -> bool {
    let sorted = |s: &str| {
        let mut v: Vec<char> = s.chars().collect();
        v.sort_unstable();
        v
    };
    sorted(a) == sorted(b)
}

/// The candidate `word` is most likely a typo of, if any (the first of [`nearest_all`]).
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    nearest_all(word, candidates).into_iter().next()
}

/// `message` with "; did you mean `x`?" appended when `word` is a likely typo of a candidate
/// ("`x` or `y`?", "`x`, `y` or `z`?" when several are as close).
pub fn with_suggestion<'a>(
    message: String,
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    let names: Vec<String> = nearest_all(word, candidates)
        .into_iter()
        .map(|c| format!("`{c}`"))
        .collect();
    match names.split_last() {
        None => message,
        Some((only, [])) => format!("{message}; did you mean {only}?"),
        Some((last, rest)) => format!("{message}; did you mean {} or {last}?", rest.join(", ")),
    }
}

/// Adds a suggestion to serde's "unknown field `x`, expected one of `a`, `b`" and "unknown
/// variant `x`, expected one of ..." messages; other messages are returned unchanged.
pub fn for_serde_message(message: String) -> String {
    let Some(rest) = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))
    else {
        return message;
    };
    let Some((word, tail)) = rest.split_once('`') else {
        return message;
    };
    let candidates: Vec<&str> = tail.split('`').skip(1).step_by(2).collect();
    let word = word.to_string();
    let owned: Vec<String> = candidates.iter().map(|s| s.to_string()).collect();
    with_suggestion(message, &word, owned.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn likely_typos_are_suggested_and_others_are_not() {
        assert_eq!(
            nearest("windw", ["window", "window_init", "ecn"]),
            Some("window")
        );
        assert_eq!(nearest("tpc", ["tcp", "cbr", "poisson"]), Some("tcp"));
        assert_eq!(nearest("rde", ["red", "ared", "pie"]), Some("red"));
        assert_eq!(nearest("Mbsp", ["bps", "kbps", "Mbps"]), Some("Mbps"));
        assert_eq!(nearest("bandwidth", ["rate", "delay"]), None);
        assert_eq!(
            for_serde_message("unknown field `windw`, expected one of `window`, `ecn`".into()),
            "unknown field `windw`, expected one of `window`, `ecn`; did you mean `window`?"
        );
        assert_eq!(
            for_serde_message("unknown variant `frist`, expected `first` or `every`".into()),
            "unknown variant `frist`, expected `first` or `every`; did you mean `first`?"
        );
        assert_eq!(
            for_serde_message("invalid type: string".into()),
            "invalid type: string"
        );
    }

    /// Issue 24, item 10: `pei` suggested `pi` (one deletion, and listed first in the
    /// registry) and not `pie` (one transposition): every name at the smallest distance is
    /// offered, a transposition first.
    #[test]
    fn a_transposition_comes_first_and_every_name_as_close_is_listed() {
        let aqms = [
            "droptail", "red", "ared", "blue", "pi", "rem", "codel", "pie",
        ];
        assert_eq!(nearest_all("pei", aqms), ["pie", "pi"]);
        assert_eq!(
            with_suggestion("unknown AQM 'pei'".into(), "pei", aqms),
            "unknown AQM 'pei'; did you mean `pie` or `pi`?"
        );
        assert_eq!(
            with_suggestion("x".into(), "ab", ["ax", "ay", "az", "abcdef"]),
            "x; did you mean `ax`, `ay` or `az`?"
        );
        // a plain misspelling still gets the one nearest name
        assert_eq!(nearest_all("blu", aqms), ["blue"]);
        assert_eq!(nearest_all("dropatil", aqms), ["droptail"]);
        assert!(nearest_all("bandwidth", aqms).is_empty());
    }
}
