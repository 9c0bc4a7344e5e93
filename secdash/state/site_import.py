"""The Dashboard's Import / export dialog (admins): upload a CSV or JSON file of sites, see each row checked (a dry
run of services/monitoring/site_import.py), import the good rows, and download every site as CSV or JSON.

Admins only, checked by the services on every call (the button is shown to admins, which checks nothing). The file
is kept server-side (a private var) between the preview and the import, and dropped when the dialog closes.
"""

import dataclasses

import reflex as rx

from secdash.models import UserPublic
from secdash.services.errors import DomainError
from secdash.services.monitoring import site_export, site_import
from secdash.services.monitoring.site_import import ImportReport, RowResult
from secdash.services.monitoring.site_import_file import MAX_FILE_BYTES, Kind
from secdash.services.scoped import in_session
from secdash.state.auth import AuthState
from secdash.state.base import protected
from secdash.state.browser_actions import toast

UPLOAD_ID = "site-import-upload"
SHOWN_REFUSED = 200  # rows the report lists (a 10,000-row file's report would not fit a websocket message)
SHOWN_ACCEPTED = 50
MAX_EVENT_DOWNLOAD_BYTES = 512 * 1024  # an export sent through the websocket; a larger one is fetched from the API
RESULT_LABELS = {"added": "Added", "ready": "Ready", "refused": "Refused"}


@dataclasses.dataclass
class ImportRowView:
    row: int = 0
    name: str = ""
    url: str = ""
    result: str = ""  # added, ready or refused
    label: str = ""
    reason: str = ""


def row_view(row: RowResult) -> ImportRowView:
    return ImportRowView(
        row=row.row,
        name=row.name or "-",
        url=row.url or "-",
        result=row.result,
        label=RESULT_LABELS[row.result],
        reason=row.reason or "",
    )


def shown_rows(report: ImportReport) -> tuple[list[ImportRowView], int]:
    """The rows the dialog lists, in the file's order (every refused one up to SHOWN_REFUSED, the first SHOWN_ACCEPTED
    good ones), and how many it leaves out."""
    refused = [row for row in report.rows if row.result == "refused"][:SHOWN_REFUSED]
    good = [row for row in report.rows if row.result != "refused"][:SHOWN_ACCEPTED]
    shown = sorted(refused + good, key=lambda row: row.row)
    return [row_view(row) for row in shown], len(report.rows) - len(shown)


def kind_of(filename: str) -> Kind | None:
    name = filename.lower()
    return "json" if name.endswith(".json") else "csv" if name.endswith((".csv", ".txt", ".tsv")) else None


class SiteImportState(AuthState):
    dialog_open: bool = False
    working: str = ""  # "checking", "importing" or "exporting" while it works; "" when idle
    file_name: str = ""
    rows: list[ImportRowView] = []
    rows_not_shown: int = 0
    summary: str = ""
    ready: int = 0  # rows the import would add (after a preview)
    refused: int = 0
    imported: bool = False  # the report is the import's (not a preview's)
    _data: bytes = b""

    def _clear(self) -> None:
        self.file_name, self.rows, self.rows_not_shown, self.summary = "", [], 0, ""
        self.ready, self.refused, self.imported, self._data = 0, 0, False, b""

    def _show(self, report: ImportReport) -> None:
        self.rows, self.rows_not_shown = shown_rows(report)
        self.summary, self.ready, self.refused = report.message, report.added, report.refused
        self.imported = not report.dry_run

    @protected(reads_only=True)
    async def open_dialog(self):
        self.dialog_open, self.working = True, ""
        self._clear()
        return None

    @protected(reads_only=True)
    async def close_dialog(self):
        if self.working:
            return None  # the work in flight ends first
        self.dialog_open = False
        self._clear()
        return None

    @protected(reads_only=True)
    async def file_refused(self, codes_by_file: list[str]):
        """The browser refused the file before sending it (its type or size): react-dropzone's error codes, comma
        separated, for each file."""
        codes = {code for item in codes_by_file[:10] for code in str(item).split(",")}
        if "file-too-large" in codes:
            message = f"The file is larger than {MAX_FILE_BYTES // 1024 // 1024} MB; split it into smaller files."
        elif "too-many-files" in codes:
            message = "Choose one file."
        else:
            message = "Choose a .csv or .json file."
        return toast.error("Not imported", description=message)

    @protected
    async def preview(self, user: UserPublic, files: list[rx.UploadFile]):
        """Check the chosen file's rows (a dry run): nothing is created until Import."""
        if self.working or not files:
            return
        upload = files[0]
        data = upload.file.read(MAX_FILE_BYTES + 1)
        name = (upload.filename or "sites")[-120:]
        self.working = "checking"
        yield
        try:
            report = await in_session(site_import.import_sites, actor=user, data=data, kind=kind_of(name), dry_run=True)
        except DomainError as exc:
            yield toast.error(f"{name} cannot be imported", description=exc.message)  # the previous preview stays
            return
        finally:
            self.working = ""
        self._clear()
        self.file_name, self._data = name, data
        self._show(report)

    @protected
    async def import_sites(self, user: UserPublic):
        """Create the good rows of the previewed file (each row is checked again)."""
        if self.working or not self._data or self.imported:
            return
        self.working = "importing"
        yield
        try:
            report = await in_session(site_import.import_sites, actor=user, data=self._data, kind=kind_of(self.file_name))
        except DomainError as exc:
            yield toast.error("Not imported", description=exc.message)
            return
        finally:
            self.working = ""
        self._data = b""
        self._show(report)
        yield toast.success(report.message, description="New sites are probed now; they show on the Dashboard.")

    @protected(reads_only=True)
    async def export(self, user: UserPublic, fmt: str):
        """Download every site (but the demo ones) as CSV or JSON."""
        if fmt not in ("csv", "json"):
            return None
        try:
            exported = await in_session(site_export.export_sites, actor=user, fmt="json" if fmt == "json" else "csv")
        except DomainError as exc:
            return toast.error("Not exported", description=exc.message)
        done = toast.success("Sites exported", description=f"{exported.count} sites in {exported.filename}")
        if len(exported.content.encode()) > MAX_EVENT_DOWNLOAD_BYTES:
            # Too large for a websocket message (1 MB): the browser fetches the same file from the API, with the
            # session cookie it holds (the API checks the user again).
            return [rx.download(url=f"/api/sites/export?format={fmt}", filename=exported.filename), done]
        return [rx.download(data=exported.content, filename=exported.filename, mime_type=exported.media_type), done]
