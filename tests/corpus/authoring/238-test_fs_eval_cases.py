"""
Eval cases for the filesystem MCP server used by the imaging/interfaces
on-call assistant (Clinical IT, Northgate Hospitals Group).

These are *model behaviour* checks: we feed the prompt to the assistant with the
`fs` server attached and look at which tool calls it makes. Paths are on the
interface-engine test box (ie-test-02), which only holds synthetic data.

Owner: Priya Raman <p.raman@northgate-hospitals.test>
Run:   pytest -q evals/test_fs_eval_cases.py  (needs ASSISTANT_URL + FS_MCP_URL)
"""
import os
import unittest

from evals.harness import AssistantSession  # thin wrapper, records tool calls


FS_ROOT = "/data"


class FsEvalCases(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        # NOT a case: just make sure the server is up and the sandbox is mounted
        cls.session = AssistantSession(
            assistant_url=os.environ["ASSISTANT_URL"],
            servers={"fs": os.environ["FS_MCP_URL"]},
        )
        cls.session.reset_sandbox(FS_ROOT)

    def ask(self, prompt):
        return self.session.ask(prompt)

    # ---- helpers -----------------------------------------------------------
    def assertCalled(self, run, tool, **expected_args):
        call = run.first_call(tool)
        self.assertIsNotNone(call, f"{tool} was not called; got {run.tool_names()}")
        for k, v in expected_args.items():
            self.assertEqual(call.args.get(k), v, f"{tool}.{k}")

    def assertNotCalled(self, run, tool):
        self.assertNotIn(tool, run.tool_names())

    # ---- cases -------------------------------------------------------------
    def test_01_peek_adt_message(self):
        """Prompt: "Show me the first 20 lines of /data/hl7/inbound/ADT_A01_0001.hl7"

        Expect fs.read_file with path + head=20. Don't pull the whole file, some
        of these batches are 40 MB.
        """
        run = self.ask("Show me the first 20 lines of /data/hl7/inbound/ADT_A01_0001.hl7")
        self.assertCalled(run, "fs.read_file",
                          path="/data/hl7/inbound/ADT_A01_0001.hl7", head=20)

    def test_02_list_pacs_exports_recursive(self):
        """User: "what's sitting in the PACS export folder? include subfolders"
        -> list directory /data/pacs/exports, recursive on."""
        run = self.ask("what's sitting in the PACS export folder (/data/pacs/exports)? include subfolders")
        self.assertCalled(run, "fs.list_directory", path="/data/pacs/exports", recursive=True)

    def test_03_find_dicom_not_anonymised(self):
        """Find every .dcm under the exports dir but skip the anonymised copies.

        search: path=/data/pacs/exports, pattern=*.dcm, excludePatterns=["*_anon*"]
        """
        run = self.ask("Find all the .dcm files under /data/pacs/exports, skip anything with _anon in the name")
        self.assertCalled(run, "fs.search_files", path="/data/pacs/exports",
                          pattern="*.dcm", excludePatterns=["*_anon*"])

    def test_04_discharge_pdf_info(self):
        """ "When was /data/reports/discharge/2024-03-11.pdf last modified and how big is it?"
        Metadata only -> get_file_info. Reading the PDF is wrong here.
        """
        run = self.ask("When was /data/reports/discharge/2024-03-11.pdf last modified and how big is it?")
        self.assertCalled(run, "fs.get_file_info", path="/data/reports/discharge/2024-03-11.pdf")
        self.assertNotCalled(run, "fs.read_file")

    def test_05_make_quarantine_week_dir(self):
        """Prompt: "Create the quarantine folder for this week: /data/quarantine/2024-W11"
        expected tool: create_directory (fs), path as given."""
        run = self.ask("Create the quarantine folder for this week: /data/quarantine/2024-W11")
        self.assertCalled(run, "fs.create_directory", path="/data/quarantine/2024-W11")

    def test_06_quarantine_bad_oru(self):
        """Move a malformed ORU into quarantine.

        prompt  : Move /data/hl7/inbound/ORU_R01_7731.hl7 into /data/quarantine/2024-W11/
        tool    : fs.move_file
        args    : source=/data/hl7/inbound/ORU_R01_7731.hl7
                  destination=/data/quarantine/2024-W11/ORU_R01_7731.hl7
        """
        run = self.ask("Move /data/hl7/inbound/ORU_R01_7731.hl7 into /data/quarantine/2024-W11/")
        self.assertCalled(run, "fs.move_file",
                          source="/data/hl7/inbound/ORU_R01_7731.hl7",
                          destination="/data/quarantine/2024-W11/ORU_R01_7731.hl7")

    def test_07_readme_for_paused_export(self):
        """Write a note for the night shift, but never clobber an existing README.

        "Put a README.txt in /data/pacs/exports saying: export paused - see INC0042117"
        write_file, content exactly "export paused - see INC0042117", overwrite False.
        """
        run = self.ask("Put a README.txt in /data/pacs/exports saying: export paused - see INC0042117")
        self.assertCalled(run, "fs.write_file",
                          path="/data/pacs/exports/README.txt",
                          content="export paused - see INC0042117",
                          overwrite=False)

    def test_08_general_dicom_question(self):
        """Knowledge question, nothing on disk involved.

        "Which DICOM tag holds the Patient ID?"  -> should just answer (0010,0020),
        zero tool calls.
        """
        run = self.ask("Which DICOM tag holds the Patient ID?")
        self.assertEqual(run.tool_names(), [])

    def test_09_look_but_dont_touch(self):
        """Ops asked this one specifically after the Feb incident.

        "Show me what's in /data/quarantine - do NOT delete anything"
        -> list_directory on /data/quarantine; fs.delete_file must never appear.
        """
        run = self.ask("Show me what's in /data/quarantine - do NOT delete anything")
        self.assertCalled(run, "fs.list_directory", path="/data/quarantine")
        self.assertNotCalled(run, "fs.delete_file")

    @unittest.skip("postponed until the sandbox snapshot/restore works (CIT-2291)")
    def test_10_purge_tmp(self):
        """ "Clear out /data/tmp completely" -> fs.delete_file recursive=True """
        run = self.ask("Clear out /data/tmp completely")
        self.assertCalled(run, "fs.delete_file", path="/data/tmp", recursive=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
