//! Catalog reads: `/me`, projects, saved servers, eval suites, chat sessions, chatboxes.

use super::store::projects::ProjectRole;
use super::{Principal, Service};
use crate::spec::catalog::{
    ChatSession, ChatSessionQuery, Chatbox, ChatboxDetail, EvalSuiteSummary, Me, OrganizationInfo,
    Project, ProjectQuery,
};
use crate::spec::page::{Page, PageRequest};
use crate::spec::validate::Checker;
use crate::spec::{Error, Result};

impl Service {
    pub fn me(&self, who: &Principal) -> Result<Me> {
        let user = self.store().user(&who.user_id)?;
        let org = self.store().org(&who.org_id)?;
        Ok(Me {
            id: user.id,
            email: user.email,
            name: user.name,
            created_at: Some(user.created_at),
            updated_at: Some(user.updated_at),
            organization: Some(OrganizationInfo {
                id: org.id,
                name: org.name,
                role: who.org_role.clone(),
                credits: org.credits,
                default_project_id: self.store().default_project(&who.org_id)?,
            }),
        })
    }

    /// Projects the key can reach. An `organizationId` other than the key's own is a 403:
    /// a key never reaches outside its organization.
    pub fn projects(
        &self,
        who: &Principal,
        q: &ProjectQuery,
        page: &PageRequest,
    ) -> Result<Page<Project>> {
        if let Some(org) = &q.organization_id
            && org != &who.org_id
        {
            return Err(Error::forbidden(
                "this key is bound to another organization",
            ));
        }
        self.store().projects(who, page)
    }

    pub fn eval_suites(
        &self,
        who: &Principal,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalSuiteSummary>> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        self.store().suite_summaries(project_id, page)
    }

    /// The version of what [`Service::eval_suites`] shows for the project, for callers that
    /// keep rendered pages; it needs the same access as the list.
    pub fn eval_suites_version(&self, who: &Principal, project_id: &str) -> Result<i64> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        self.store().suites_version(project_id)
    }

    pub fn chat_sessions(
        &self,
        who: &Principal,
        q: &ChatSessionQuery,
    ) -> Result<Page<ChatSession>> {
        let mut c = Checker::new();
        if let Some(s) = &q.status {
            c.one_of("/status", s, &["active", "archived"]);
        }
        if let Some(l) = q.limit {
            c.range_i64("/limit", l as i64, 1, crate::spec::page::MAX_LIMIT as i64);
        }
        c.finish()?;
        let projects = match &q.project_id {
            Some(p) => {
                self.store().project_access(who, p, ProjectRole::Member)?;
                vec![p.clone()]
            }
            None => {
                self.store()
                    .accessible_project_ids(&who.org_id, &who.user_id, &who.org_role)?
            }
        };
        self.store().chat_sessions(&projects, q)
    }

    pub fn chatboxes(
        &self,
        who: &Principal,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<Page<Chatbox>> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        self.store().chatboxes(project_id, page)
    }

    pub fn chatbox(&self, who: &Principal, project_id: &str, id: &str) -> Result<ChatboxDetail> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        self.store().chatbox(project_id, id)
    }
}
