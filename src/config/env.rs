//! The environment's part of the configuration: variables by name, and `${NAME}` expansion.

/// Environment variables, by name (a closure so that tests need not touch the process env).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The process's environment, or (`blank`) none at all: what a command that needs no
/// configuration (`completions`, `man`) reads, so another program's variables cannot fail it.
pub fn process_env_unless(blank: bool) -> impl Fn(&str) -> Option<String> {
    move |name| if blank { None } else { process_env(name) }
}

/// Why `${NAME}` expansion failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    /// `${` without its `}` (the text, its password masked).
    #[error("an unclosed ${{ in {0:?}")]
    Unclosed(String),
    #[error("${{{0}}} is not an environment variable name")]
    BadName(String),
    #[error("${{{0}}} is not set in the environment")]
    Unset(String),
}

/// Replaces each `${NAME}` with the environment variable's value, so that secrets stay out of
/// config files (`to: "amqp://relay:${RABBIT_PASSWORD}@mq:5672/%2f"`). `$$` is a literal `$`.
/// An unset variable is an error naming it.
pub fn expand_env(text: &str, env: Env) -> Result<String, EnvError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(body) = after.strip_prefix('{') {
            let end = body
                .find('}')
                .ok_or_else(|| EnvError::Unclosed(crate::dburl::mask(text).to_string()))?;
            let name = &body[..end];
            let valid = !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit());
            if !valid {
                return Err(EnvError::BadName(name.to_owned()));
            }
            let value = env(name).ok_or_else(|| EnvError::Unset(name.to_owned()))?;
            out.push_str(&value);
            rest = &body[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}
