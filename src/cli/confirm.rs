//! Confirmation of destructive steps: `--yes` goes ahead; otherwise a prompt on a terminal
//! that defaults to No; without a terminal, a refusal (exit 5) that says to pass `--yes`.

use std::io::IsTerminal;

use crate::Error;

pub fn confirm(yes: bool, question: &str) -> Result<(), Error> {
    if yes {
        return Ok(());
    }
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return Err(Error::Refused(format!(
            "refusing to {question} without confirmation: no terminal to ask on; pass --yes"
        )));
    }
    let answer = dialoguer::Confirm::new()
        .with_prompt(format!("{question}?"))
        .default(false)
        .interact()
        .map_err(|e| Error::Refused(format!("no answer to the confirmation: {e}")))?;
    if answer {
        Ok(())
    } else {
        Err(Error::Refused("declined; nothing changed".into()))
    }
}
