//! The one integration test binary: a module per capability.
mod agent;
mod aliases;
mod common;
mod contract;
mod idempotency;
mod import;
mod ingest;
mod mcp;
mod perf;
mod perf_mcp;
mod perf_tui;
mod primitives;
mod runs;
mod schedule;
mod scripted_model;
mod suite_file;
mod tui;
