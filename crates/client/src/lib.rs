//! The client: `Backend`, embedded (the core in process) and remote (HTTP), each one
//! generic dispatch over the operation list.

pub use evaldeck_contract::spec;
pub(crate) use evaldeck_core::service;
pub(crate) use evaldeck_operations::operations;
pub mod client;

/// What the workbench and the CLI use of this process besides `Backend`, named one by one
/// so that nothing else of the core is in their reach.
pub mod local {
    /// The embedded backend's store file when none is given.
    pub use evaldeck_core::service::default_db_path;

    /// The operator's interface (keys, organizations, members, projects, credits); the
    /// binary opens it, the CLI only calls it.
    pub mod admin {
        pub use evaldeck_core::admin::{
            Admin, ApiKeyInfo, CreatedKey, Member, MemberRole, Opener, Organization,
            STARTING_CREDITS,
        };
    }

    /// Hooks of an embedded tool call: who answers the server's questions, where its
    /// progress goes, how its traffic reads.
    pub mod mcp {
        pub use evaldeck_core::service::mcp::Asker;
        pub use evaldeck_core::service::mcp::client::Progress;
        pub use evaldeck_core::service::mcp::traffic::line as traffic_line;
    }

    /// Pure functions over wire types, computed where the snapshots are (the CLI compares
    /// local files; the workbench compares what it listed).
    pub mod checks {
        pub use evaldeck_core::service::checks::catalog;
        pub use evaldeck_core::service::drift::diff as drift;
        pub use evaldeck_core::service::pins::pin_file;
        pub use evaldeck_core::service::scan::{RULES, scan};
    }
}
