//! "did you mean ...?" for unknown keys, names and units (issue 11, item 4).
//!
//! The nearest candidate by optimal-string-alignment distance (a transposition counts as one
//! edit: `windw`, `tpc`, `Mbsp`), if it is close enough to be a likely typo: at most one edit
//! for names of up to four characters, at most a third of the length above that.

/// The candidate `word` most likely mistyped, if any.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (strsim::osa_distance(word, c), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// `message` with "; did you mean `x`?" appended when `word` is a likely typo of a candidate.
pub fn with_suggestion<'a>(
    message: String,
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    match nearest(word, candidates) {
        Some(c) => format!("{message}; did you mean `{c}`?"),
        None => message,
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
}
