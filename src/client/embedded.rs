//! The core in-process, acting as the local owner of the first-run organization.

use async_trait::async_trait;

use super::Backend;
use crate::service::{Principal, Service};
use crate::spec::Result;
use crate::spec::case::{EvalCase, EvalCaseUpdate};
use crate::spec::catalog::{
    ChatSession, ChatSessionQuery, Chatbox, ChatboxDetail, Deleted, EvalSuiteSummary, Me, Project,
    ProjectQuery,
};
use crate::spec::environment::{
    Created, Environment, EnvironmentCreate, EnvironmentPatch, EnvironmentQuery,
    EnvironmentResolution, EnvironmentRestored, PluginVersionCreate, ServerGroupCreate,
    SkillCreate,
};
use crate::spec::host::{Host, HostCreate, HostPatch, HostSummary};
use crate::spec::page::{Page, PageRequest};
use crate::spec::primitives::{CallCancelled, Subscribed, TaskCancelled, TaskList, TrafficPage};
use crate::spec::primitives::{
    CheckOauthResult, DoctorReport, ExportSnapshot, ImportTokensRequest, ImportTokensResult,
    ListRequest, McpPage, PromptGetRequest, PromptItem, ResourceItem, ResourceReadRequest,
    ResourceTemplateItem, ToolCallRequest, ToolItem, ValidateResult,
};
use crate::spec::run::{EvalIteration, EvalRun, RunCreate, RunCreated, RunSource};
use crate::spec::server::{Server, ServerCreate, ServerPatch};
use crate::spec::suite::{EvalSuite, SuiteCreate, SuiteCreated, SuitePatch};
use serde_json::Value;

pub struct Embedded {
    service: Service,
    who: Principal,
}

impl Embedded {
    /// Acts as the local owner.
    pub fn new(service: Service) -> Result<Embedded> {
        let who = service.local_principal()?;
        Ok(Embedded { service, who })
    }

    /// Acts as a given principal (tests compare this with a remote key of the same member).
    pub fn as_principal(service: Service, who: Principal) -> Embedded {
        Embedded { service, who }
    }

    pub fn service(&self) -> &Service {
        &self.service
    }
}

#[async_trait]
impl Backend for Embedded {
    fn describe(&self) -> String {
        format!("embedded: {}", self.service.store().path().display())
    }

    async fn close(&self) {
        self.service.shutdown().await;
    }

    fn start_scheduler(&self) {
        self.service.start_scheduler();
    }

    async fn me(&self) -> Result<Me> {
        self.service.me(&self.who)
    }
    async fn projects(&self, q: &ProjectQuery, page: &PageRequest) -> Result<Page<Project>> {
        self.service.projects(&self.who, q, page)
    }
    async fn eval_suites(
        &self,
        project: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalSuiteSummary>> {
        self.service.eval_suites(&self.who, project, page)
    }
    async fn chat_sessions(&self, q: &ChatSessionQuery) -> Result<Page<ChatSession>> {
        self.service.chat_sessions(&self.who, q)
    }
    async fn chatboxes(&self, project: &str, page: &PageRequest) -> Result<Page<Chatbox>> {
        self.service.chatboxes(&self.who, project, page)
    }
    async fn chatbox(&self, project: &str, id: &str) -> Result<ChatboxDetail> {
        self.service.chatbox(&self.who, project, id)
    }

    async fn servers(&self, project: &str, page: &PageRequest) -> Result<Page<Server>> {
        self.service.servers(&self.who, project, page)
    }
    async fn server(&self, project: &str, id_or_name: &str) -> Result<Server> {
        self.service.server(&self.who, project, id_or_name)
    }
    async fn create_server(&self, project: &str, body: &ServerCreate) -> Result<Server> {
        self.service.create_server(&self.who, project, body)
    }
    async fn update_server(&self, project: &str, id: &str, body: &ServerPatch) -> Result<Server> {
        self.service.update_server(&self.who, project, id, body)
    }
    async fn delete_server(&self, project: &str, id: &str) -> Result<Deleted> {
        self.service.delete_server(&self.who, project, id)
    }

    async fn hosts(&self, project: &str, page: &PageRequest) -> Result<Page<HostSummary>> {
        self.service.hosts(&self.who, project, page)
    }
    async fn host(&self, project: &str, id: &str) -> Result<Host> {
        self.service.host(&self.who, project, id)
    }
    async fn create_host(&self, project: &str, body: &HostCreate) -> Result<Host> {
        self.service.create_host(&self.who, project, body)
    }
    async fn update_host(&self, project: &str, id: &str, body: &HostPatch) -> Result<Host> {
        self.service.update_host(&self.who, project, id, body)
    }
    async fn delete_host(&self, project: &str, id: &str) -> Result<Deleted> {
        self.service.delete_host(&self.who, project, id)
    }

    async fn environments(&self, project: &str, q: &EnvironmentQuery) -> Result<Page<Environment>> {
        self.service.environments(&self.who, project, q)
    }
    async fn environment(&self, project: &str, id: &str) -> Result<Environment> {
        self.service.environment(&self.who, project, id)
    }
    async fn create_environment(
        &self,
        project: &str,
        body: &EnvironmentCreate,
    ) -> Result<Environment> {
        self.service.create_environment(&self.who, project, body)
    }
    async fn update_environment(
        &self,
        project: &str,
        id: &str,
        body: &EnvironmentPatch,
    ) -> Result<Environment> {
        self.service
            .update_environment(&self.who, project, id, body)
    }
    async fn resolve_environment(&self, project: &str, id: &str) -> Result<EnvironmentResolution> {
        self.service.resolve_environment(&self.who, project, id)
    }
    async fn archive_environment(
        &self,
        project: &str,
        id: &str,
        expected_revision: i64,
    ) -> Result<Environment> {
        self.service
            .archive_environment(&self.who, project, id, expected_revision)
    }
    async fn restore_environment(
        &self,
        project: &str,
        id: &str,
        expected_revision: i64,
    ) -> Result<EnvironmentRestored> {
        self.service
            .restore_environment(&self.who, project, id, expected_revision)
    }

    async fn validate_server(&self, project: &str, server: &str) -> Result<ValidateResult> {
        self.service
            .validate_server(&self.who, project, server)
            .await
    }
    async fn doctor(&self, project: &str, server: &str) -> Result<DoctorReport> {
        self.service.doctor(&self.who, project, server).await
    }
    async fn check_oauth(&self, project: &str, server: &str) -> Result<CheckOauthResult> {
        self.service.check_oauth(&self.who, project, server)
    }
    async fn tools(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ToolItem>> {
        self.service.tools(&self.who, project, server, req).await
    }
    async fn call_tool(&self, project: &str, server: &str, req: &ToolCallRequest) -> Result<Value> {
        self.service
            .call_tool(&self.who, project, server, req)
            .await
    }
    async fn call_tool_watched(
        &self,
        project: &str,
        server: &str,
        req: &ToolCallRequest,
        watch: super::CallWatch,
    ) -> Result<Value> {
        let ctx = crate::service::mcp::CallContext {
            progress: watch.progress,
            asker: watch.asker,
            ..Default::default()
        };
        self.service
            .call_tool_with(&self.who, project, server, req, &ctx)
            .await
    }
    async fn cancel_call(
        &self,
        project: &str,
        server: &str,
        call_id: &str,
    ) -> Result<CallCancelled> {
        self.service
            .cancel_call(&self.who, project, server, call_id)
    }
    async fn subscribe_resource(
        &self,
        project: &str,
        server: &str,
        req: &ResourceReadRequest,
    ) -> Result<Subscribed> {
        self.service
            .subscribe_resource(&self.who, project, server, req)
            .await
    }
    async fn server_tasks(&self, project: &str, server: &str) -> Result<TaskList> {
        self.service.server_tasks(&self.who, project, server).await
    }
    async fn cancel_task(
        &self,
        project: &str,
        server: &str,
        task_id: &str,
    ) -> Result<TaskCancelled> {
        self.service
            .cancel_task(&self.who, project, server, task_id)
            .await
    }
    async fn server_traffic(&self, project: &str, server: &str, after: u64) -> Result<TrafficPage> {
        self.service
            .server_traffic(&self.who, project, server, after)
    }
    async fn prompts(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<PromptItem>> {
        self.service.prompts(&self.who, project, server, req).await
    }
    async fn get_prompt(
        &self,
        project: &str,
        server: &str,
        req: &PromptGetRequest,
    ) -> Result<Value> {
        self.service
            .get_prompt(&self.who, project, server, req)
            .await
    }
    async fn resources(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ResourceItem>> {
        self.service
            .resources(&self.who, project, server, req)
            .await
    }
    async fn resource_templates(
        &self,
        project: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ResourceTemplateItem>> {
        self.service
            .resource_templates(&self.who, project, server, req)
            .await
    }
    async fn read_resource(
        &self,
        project: &str,
        server: &str,
        req: &ResourceReadRequest,
    ) -> Result<Value> {
        self.service
            .read_resource(&self.who, project, server, req)
            .await
    }
    async fn export(&self, project: &str, server: &str) -> Result<ExportSnapshot> {
        self.service.export(&self.who, project, server).await
    }
    async fn last_snapshot(&self, project: &str, server: &str) -> Result<Option<ExportSnapshot>> {
        self.service.last_snapshot(&self.who, project, server)
    }
    async fn check(
        &self,
        project: &str,
        server: &str,
        req: &crate::spec::conformance::CheckRequest,
    ) -> Result<crate::spec::conformance::CheckReport> {
        self.service.check(&self.who, project, server, req).await
    }
    async fn import_tokens(
        &self,
        project: &str,
        server: &str,
        req: &ImportTokensRequest,
    ) -> Result<ImportTokensResult> {
        self.service
            .import_tokens(&self.who, project, server, req)
            .await
    }

    async fn create_suite(&self, project: &str, body: &SuiteCreate) -> Result<SuiteCreated> {
        self.service.create_suite(&self.who, project, body)
    }
    async fn suite(&self, project: &str, suite: &str) -> Result<EvalSuite> {
        self.service.suite(&self.who, project, suite)
    }
    async fn update_suite(
        &self,
        project: &str,
        suite: &str,
        body: &SuitePatch,
    ) -> Result<EvalSuite> {
        self.service.update_suite(&self.who, project, suite, body)
    }
    async fn delete_suite(&self, project: &str, suite: &str) -> Result<Deleted> {
        self.service.delete_suite(&self.who, project, suite)
    }
    async fn schedule(
        &self,
        project: &str,
        suite: &str,
    ) -> Result<crate::spec::schedule::SuiteSchedule> {
        self.service.schedule(&self.who, project, suite)
    }
    async fn set_schedule(
        &self,
        project: &str,
        suite: &str,
        body: &crate::spec::schedule::SchedulePatch,
    ) -> Result<crate::spec::schedule::SuiteSchedule> {
        self.service.set_schedule(&self.who, project, suite, body)
    }
    async fn cases(&self, project: &str, suite: &str) -> Result<Page<EvalCase>> {
        self.service
            .cases(&self.who, project, suite, &Default::default())
    }
    async fn case(&self, project: &str, suite: &str, case: &str) -> Result<EvalCase> {
        self.service.case(&self.who, project, suite, case)
    }
    async fn create_case(&self, project: &str, suite: &str, body: &Value) -> Result<EvalCase> {
        self.service
            .create_case(&self.who, project, suite, body.clone())
    }
    async fn update_case(
        &self,
        project: &str,
        suite: &str,
        case: &str,
        body: &EvalCaseUpdate,
    ) -> Result<EvalCase> {
        self.service
            .update_case(&self.who, project, suite, case, body)
    }
    async fn delete_case(&self, project: &str, suite: &str, case: &str) -> Result<Deleted> {
        self.service.delete_case(&self.who, project, suite, case)
    }

    async fn create_run(&self, project: &str, body: &RunCreate) -> Result<RunCreated> {
        self.service
            .create_run(&self.who, project, body, RunSource::Ui)
            .await
    }
    async fn run(&self, project: &str, run: &str) -> Result<EvalRun> {
        self.service.run(&self.who, project, run)
    }
    async fn iterations(
        &self,
        project: &str,
        run: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalIteration>> {
        self.service.iterations(&self.who, project, run, page)
    }
    async fn trace(&self, project: &str, run: &str, iteration: &str) -> Result<Value> {
        self.service.trace(&self.who, project, run, iteration)
    }
    async fn project_runs(&self, project: &str, page: &PageRequest) -> Result<Page<EvalRun>> {
        self.service.project_runs(&self.who, project, page)
    }
    async fn suite_runs(
        &self,
        project: &str,
        suite: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalRun>> {
        self.service.suite_runs(&self.who, project, suite, page)
    }
    async fn cancel_run(&self, project: &str, run: &str) -> Result<EvalRun> {
        self.service.cancel_run(&self.who, project, run).await
    }
    async fn regrade_run(&self, project: &str, run: &str) -> Result<EvalRun> {
        self.service.regrade_run(&self.who, project, run)
    }

    async fn create_server_group(
        &self,
        project: &str,
        body: &ServerGroupCreate,
    ) -> Result<Created> {
        self.service.create_server_group(&self.who, project, body)
    }
    async fn create_plugin_version(
        &self,
        project: &str,
        body: &PluginVersionCreate,
    ) -> Result<Created> {
        self.service.create_plugin_version(&self.who, project, body)
    }
    async fn delete_plugin_version(&self, project: &str, id: &str) -> Result<Deleted> {
        self.service.delete_plugin_version(&self.who, project, id)
    }
    async fn create_skill(&self, project: &str, body: &SkillCreate) -> Result<Created> {
        self.service.create_skill(&self.who, project, body)
    }

    // Authoring (`cases/import`), its job paths and credits.
    async fn import_cases(
        &self,
        project: &str,
        suite: &str,
        req: &crate::spec::import::EvalCaseImportRequest,
    ) -> Result<crate::spec::import::ImportResponse> {
        self.service
            .import_cases(&self.who, project, suite, req, None)
            .await
    }
    async fn authoring_job(
        &self,
        project: &str,
        job: &str,
    ) -> Result<crate::spec::import::ImportResponse> {
        self.service.authoring_job(&self.who, project, job)
    }
    async fn commit_authoring_job(
        &self,
        project: &str,
        job: &str,
        body: &crate::spec::authoring::CommitRequest,
    ) -> Result<crate::spec::import::EvalCaseImported> {
        self.service
            .commit_authoring_job(&self.who, project, job, body)
    }
    async fn cancel_authoring_job(
        &self,
        project: &str,
        job: &str,
    ) -> Result<crate::spec::import::EvalAuthoringJobAccepted> {
        self.service.cancel_authoring_job(&self.who, project, job)
    }
    async fn authoring_drafts(
        &self,
        project: &str,
        job: &str,
        q: &crate::spec::authoring::DraftQuery,
    ) -> Result<Page<crate::spec::authoring::AuthoringDraft>> {
        self.service.authoring_drafts(&self.who, project, job, q)
    }
    async fn earlier_imports(
        &self,
        project: &str,
        suite: &str,
        file_hash: &str,
    ) -> Result<Page<crate::spec::authoring::EarlierImport>> {
        self.service.earlier_imports(
            &self.who,
            project,
            suite,
            &crate::spec::authoring::EarlierImportQuery {
                file_hash: file_hash.to_string(),
            },
        )
    }
    async fn save_draft(
        &self,
        project: &str,
        job: &str,
        draft: &str,
        edit: &EvalCaseUpdate,
    ) -> Result<crate::spec::authoring::AuthoringDraft> {
        self.service
            .save_draft(&self.who, project, job, draft, edit)
    }
    async fn finish_draft(
        &self,
        project: &str,
        job: &str,
        draft: &str,
        edit: &EvalCaseUpdate,
    ) -> Result<EvalCase> {
        self.service
            .finish_draft(&self.who, project, job, draft, edit)
    }
    async fn credits(&self) -> Result<crate::spec::authoring::Credits> {
        self.service.credits(&self.who)
    }

    async fn ingest_report(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestReport,
    ) -> Result<crate::spec::ingest::IngestRun> {
        self.service.ingest_report(&self.who, project, body)
    }
    async fn ingest_start(
        &self,
        project: &str,
        body: &crate::spec::ingest::RunFields,
    ) -> Result<crate::spec::ingest::IngestRun> {
        self.service.ingest_start(&self.who, project, body)
    }
    async fn ingest_iterations(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestIterations,
    ) -> Result<crate::spec::ingest::IngestBatch> {
        self.service.ingest_iterations(&self.who, project, body)
    }
    async fn ingest_finalize(
        &self,
        project: &str,
        body: &crate::spec::ingest::IngestFinalize,
    ) -> Result<crate::spec::ingest::IngestRun> {
        self.service.ingest_finalize(&self.who, project, body)
    }
    async fn ingest_upload_url(
        &self,
        project: &str,
        body: &crate::spec::ingest::UploadUrlRequest,
    ) -> Result<crate::spec::ingest::UploadUrl> {
        self.service
            .ingest_upload_url(&self.who, project, body, None)
    }
    async fn ingest_artifact(
        &self,
        project: &str,
        storage_id: &str,
    ) -> Result<crate::spec::ingest::StoredArtifact> {
        self.service.ingest_artifact(&self.who, project, storage_id)
    }

    async fn agent_turn(
        &self,
        project: &str,
        req: &crate::spec::agent::AgentTurnRequest,
    ) -> Result<crate::spec::agent::AgentTurnResponse> {
        self.service.agent_turn(&self.who, project, req).await
    }
}
