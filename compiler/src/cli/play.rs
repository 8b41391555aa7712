//! `wsitec play SITE --task NAME`: a person plays a task in the terminal. Each
//! turn shows the page and numbered actions; the reply is a number (or `r` to
//! restart, `q` to quit). Bad input gets a message and changes nothing.

use super::{simulator, site};
use clap::Args;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use wsite_runtime::env::{Action, ActionKind, Env, RewardConfig};

#[derive(Args)]
pub struct PlayArgs {
    /// A `.wsite` file or a directory of them.
    site: PathBuf,
    /// The task to play (a template name plays its first instance).
    #[arg(long)]
    task: String,
    #[command(flatten)]
    simulator: simulator::SimulatorArgs,
}

pub fn run(args: PlayArgs) -> ExitCode {
    let program = match site::open(&args.site) {
        Ok(p) => p,
        Err(why) => return fail(&why),
    };
    let instance = match site::instance(&program, &args.task) {
        Ok(i) => i,
        Err(why) => return fail(&why),
    };
    let writer = match args.simulator.start() {
        Ok(w) => w,
        Err(why) => return fail(&why),
    };
    let mut env = match Env::new(&program, &instance, RewardConfig::default()) {
        Ok(env) => env,
        Err(why) => return fail(&why.to_string()),
    };
    env.set_writer(writer);
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut total = 0.0;
    loop {
        show(&env);
        print!("> ");
        let _ = std::io::stdout().flush();
        let Some(Ok(line)) = lines.next() else {
            return ExitCode::SUCCESS;
        };
        match line.trim() {
            "q" | "quit" => return ExitCode::SUCCESS,
            "r" | "restart" => {
                if let Err(why) = env.reset() {
                    return fail(&why.to_string());
                }
                total = 0.0;
            }
            choice => match pick(&env, choice) {
                Ok(action) => match env.step(&action) {
                    Ok(step) => {
                        total += step.reward;
                        println!(
                            "reward {:+.4}  progress {:.3}  total {total:+.4}",
                            step.reward, step.progress
                        );
                        if step.done {
                            println!(
                                "{} after the episode's last step",
                                if step.success { "SUCCESS" } else { "FAILED" }
                            );
                            return ExitCode::SUCCESS;
                        }
                    }
                    Err(why) => println!("{why}"),
                },
                Err(why) => println!("{why}"),
            },
        }
    }
}

fn show(env: &Env<'_>) {
    let obs = env.observation();
    println!("\n{}  {}\n{}", obs.title, obs.url, obs.instruction);
    if let Some(alert) = &obs.alert {
        println!("! {alert}");
    }
    println!("{}", obs.axtree);
    for (i, a) in env.actions().iter().enumerate() {
        println!("  {i:>3}. {}", describe(a));
    }
}

fn describe(a: &Action) -> String {
    let verb = match a.kind {
        ActionKind::Click => "click",
        ActionKind::Type => "type",
        ActionKind::Select => "select",
        ActionKind::Answer => "answer",
    };
    let element = a.element.map(|e| format!(" [{e}]")).unwrap_or_default();
    let text = a
        .text
        .as_ref()
        .map(|t| format!(" {t:?}"))
        .unwrap_or_default();
    format!("{verb}{element}{text}")
}

fn pick(env: &Env<'_>, choice: &str) -> Result<Action, String> {
    let n: usize = choice.parse().map_err(|_| {
        format!("type an action number, `r` to restart or `q` to quit (not `{choice}`)")
    })?;
    env.actions().get(n).cloned().ok_or_else(|| {
        format!(
            "there is no action {n}; pick 0 to {}",
            env.actions().len().saturating_sub(1)
        )
    })
}

fn fail(why: &str) -> ExitCode {
    eprintln!("error: {why}");
    ExitCode::from(1)
}
