//! `outboxctl completions SHELL` and `outboxctl man`: generated from the same clap
//! definitions as the parser, so they cannot drift (a test compares `completions/`).

use std::path::PathBuf;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{Cli, Ctx};
use crate::Error;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, powershell or elvish
    pub shell: Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write one page per command (outboxctl.1, outboxctl-relay.1, …) into this folder
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// The completion script for a shell.
pub fn completion_script(shell: Shell) -> Vec<u8> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "outboxctl", &mut out);
    out
}

pub fn completions(ctx: &Ctx, args: CompletionsArgs) -> anyhow::Result<()> {
    ctx.out
        .data(&String::from_utf8_lossy(&completion_script(args.shell)));
    Ok(())
}

fn render(cmd: clap::Command) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut out)
        .map_err(|e| Error::io("rendering the man page", e))?;
    Ok(out)
}

pub fn man(ctx: &Ctx, args: ManArgs) -> anyhow::Result<()> {
    let cmd = Cli::command();
    let Some(dir) = args.out else {
        ctx.out.data(&String::from_utf8_lossy(&render(cmd)?));
        return Ok(());
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    // a page for every command at every depth, named as the pages above refer to it
    // (`outboxctl-schema-print(1)`)
    let (mut pages, mut todo) = (Vec::new(), vec![("outboxctl".to_owned(), cmd)]);
    while let Some((name, page)) = todo.pop() {
        let subs = page
            .get_subcommands()
            .map(|s| (format!("{name}-{}", s.get_name()), s.clone()));
        todo.extend(subs.collect::<Vec<_>>());
        pages.push((name.clone(), page.name(name)));
    }
    pages.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, page) in pages {
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, render(page)?)
            .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
        ctx.out.data(&format!("wrote {}", path.display()));
    }
    Ok(())
}
