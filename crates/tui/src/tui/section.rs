//! The sections of the workbench (the navigation's rows under a project). Its own module, so
//! the keymap, the palette and the settings name a section without the navigation.

use serde::{Deserialize, Serialize};

/// A main-area pane. New sections (runs, import) slot in here as their backends land.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Projects,
    Servers,
    Environments,
    Hosts,
    Suites,
    Runs,
}

impl Section {
    pub const ALL: [Section; 6] = [
        Section::Projects,
        Section::Servers,
        Section::Environments,
        Section::Hosts,
        Section::Suites,
        Section::Runs,
    ];
    /// The sections listed under the active project.
    pub const CHILDREN: [Section; 5] = [
        Section::Servers,
        Section::Environments,
        Section::Hosts,
        Section::Suites,
        Section::Runs,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Section::Projects => "Projects",
            Section::Servers => "Servers",
            Section::Environments => "Envs",
            Section::Hosts => "Hosts",
            Section::Suites => "Suites",
            Section::Runs => "Runs",
        }
    }

    pub fn goto_label(self) -> &'static str {
        match self {
            Section::Projects => "go to projects",
            Section::Servers => "go to servers",
            Section::Environments => "go to environments",
            Section::Hosts => "go to hosts",
            Section::Suites => "go to suites",
            Section::Runs => "go to runs",
        }
    }
}
