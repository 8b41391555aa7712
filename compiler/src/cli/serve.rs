//! `wsitec serve SITE`: the site as a web application (serve/, INTERFACES
//! "`wsitec serve`"). Prints the address it listens on as its first line of
//! output (tests and scripts read it), then serves until Ctrl-C.

use super::{simulator, site};
use clap::Args;
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use wsite_serve::{App, Options};

#[derive(Args)]
pub struct ServeArgs {
    /// A `.wsite` file, a directory of them, or a built `.wsb`.
    site: PathBuf,
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    host: IpAddr,
    /// Keep sessions in this SQLite file (created if missing), so that a
    /// restart keeps them; without it they live in memory.
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    /// The task new sessions play (`POST /_wsite/reset` picks another);
    /// without it they browse freely.
    #[arg(long)]
    task: Option<String>,
    #[command(flatten)]
    simulator: simulator::SimulatorArgs,
}

pub fn run(args: ServeArgs) -> ExitCode {
    match serve(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::FAILURE
        }
    }
}

fn serve(args: ServeArgs) -> Result<(), String> {
    let program = site::open(&args.site)?;
    let writer = args.simulator.start()?;
    let options = Options {
        db: args.db,
        task: args.task,
        writer,
    };
    let app = App::new(program, options).map_err(|e| e.to_string())?;
    let addr = SocketAddr::new(args.host, args.port);
    wsite_serve::serve(Arc::new(app), addr, |bound| {
        println!("serving {} at http://{bound}/", args.site.display());
        let _ = std::io::stdout().flush();
    })
    .map_err(|e| format!("cannot serve on {addr}: {e}"))
}
