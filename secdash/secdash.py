"""The Reflex app: pages, the mounted API and the toast settings."""

import reflex as rx

from secdash import routes
from secdash.api.connection_guard import LiveChannelGuard
from secdash.api.main import create_api
from secdash.components.screens import loading_screen
from secdash.components.shell import shell
from secdash.jobs.runner import run_job_workers
from secdash.pages.ai_systems import ai_systems_content
from secdash.pages.battle_station import battle_station_content
from secdash.pages.code_artifacts import code_artifacts_content
from secdash.pages.code_builder import code_builder_content
from secdash.pages.dashboard import dashboard_screen
from secdash.pages.defense_command import defense_center_content, defense_command_content
from secdash.pages.fix_mode import fix_mode_content
from secdash.pages.history import history_content
from secdash.pages.landing import landing
from secdash.pages.login import login_page
from secdash.pages.modules import PENDING_MODULES, pending_module
from secdash.pages.not_found import not_found
from secdash.pages.settings import settings_content
from secdash.services.artifacts import generate_job as artifact_job  # noqa: F401  (registers the "artifact" job kind)
from secdash.services.battle import drills  # noqa: F401  (registers the "drill" job kind)
from secdash.services.battle.threats import run_threat_simulation
from secdash.services.builder import build_job  # noqa: F401  (registers the "build" job kind)
from secdash.services.fix import jobs as fix_jobs  # noqa: F401  (registers the "fix" job kind)
from secdash.services.housekeeping import run_housekeeping
from secdash.services.monitoring import rounds  # noqa: F401  (registers the "probe-shard" job kind in every worker)
from secdash.services.monitoring.monitor import run_monitor
from secdash.services.monitoring.simulation import run_simulation
from secdash.services.monitoring.sites import seed_default_sites
from secdash.services.scanning import scans  # noqa: F401  (registers the "scan" job kind in every worker)
from secdash.services.traffic.detection import run_detection
from secdash.state import follow
from secdash.state.auth import AuthState
from secdash.state.defense_command import DefenseCenterState
from secdash.state.event_guard import EventShapeGuard
from secdash.state.history import HistoryState

app = rx.App(
    stylesheets=["/motion.css"],  # less motion when the system asks for it (assets/motion.css)
    # The API (with its security headers and body limits), then the live channel's per-client caps.
    api_transformer=[create_api(), LiveChannelGuard],
    toaster=rx.toast.provider(
        # Top right, below the sticky bar: at the bottom a toast covered the chat composers and the floating
        # chat button (on a phone sonner spreads it across the screen's width).
        visible_toasts=1,
        position="top-right",
        rich_colors=True,
        close_button=True,
        offset=rx.Var.create({"top": "4.5rem", "right": "1.5rem"}).to(str),
        hotkey=rx.Var.create(["F8"]).to(str),  # sonner takes a key list; the spec's viewport hotkey
        toast_options=rx.toast.options(duration=5000, style={"maxWidth": "420px"}),
    ),
)


def index() -> rx.Component:
    """/ : the dashboard when signed in, the public landing page otherwise."""
    return rx.cond(
        AuthState.auth_checked,
        rx.cond(AuthState.is_authenticated, shell(dashboard_screen(), routes.DASHBOARD_ROUTE), landing()),
        loading_screen(),
    )


app.add_page(index, route=routes.DASHBOARD_ROUTE, title="SecDash", on_load=AuthState.check_auth)
app.add_page(landing, route=routes.LANDING_ROUTE, title="SecDash")
app.add_page(login_page, route=routes.LOGIN_ROUTE, title="Admin Access Portal - SecDash", on_load=AuthState.check_auth)
app.add_page(
    shell(history_content(), routes.HISTORY_ROUTE),
    route=routes.HISTORY_ROUTE,
    title="History Logs - SecDash",
    on_load=[AuthState.check_auth, HistoryState.load],
)
app.add_page(
    shell(ai_systems_content(), routes.AI_SYSTEMS_ROUTE),
    route=routes.AI_SYSTEMS_ROUTE,
    title="AI Systems - SecDash",
    on_load=AuthState.check_auth,
)
app.add_page(
    shell(battle_station_content(), routes.BATTLE_STATION_ROUTE),
    route=routes.BATTLE_STATION_ROUTE,
    title="Battle Station - SecDash",
    on_load=AuthState.check_auth,
)
app.add_page(
    shell(fix_mode_content(), routes.FIX_MODE_ROUTE),
    route=routes.FIX_MODE_ROUTE,
    title="Fix Mode - SecDash",
    on_load=AuthState.check_auth,
)
app.add_page(
    shell(code_builder_content(), routes.CODE_MODE_ROUTE),
    route=routes.CODE_MODE_ROUTE,
    title="Live Code Builder - SecDash",
    on_load=AuthState.check_auth,
)
app.add_page(
    shell(code_artifacts_content(), routes.CODE_MODE_ROUTE),  # a Code Mode tool: "Code Mode" stays highlighted
    route=routes.CODE_ARTIFACTS_ROUTE,
    title="Code Mode - HTML Artifacts - SecDash",
    on_load=AuthState.check_auth,
)
app.add_page(
    shell(settings_content(), routes.SETTINGS_ROUTE),
    route=routes.SETTINGS_ROUTE,
    title="Settings - SecDash",
    on_load=AuthState.check_auth,
)
for _route, (_title, _what) in PENDING_MODULES.items():
    app.add_page(shell(pending_module(_route), _route), route=_route, title=f"{_title} - SecDash", on_load=AuthState.check_auth)
app.add_page(
    shell(defense_command_content(), routes.DEFENSE_COMMAND_ROUTE),
    route=routes.DEFENSE_COMMAND_ROUTE,
    title="Defense Command - SecDash",
    on_load=AuthState.check_auth,
)
app.add_page(
    shell(defense_center_content(), routes.DEFENSE_COMMAND_ROUTE),
    route=routes.DEFENSE_CENTER_ROUTE,
    title="Defense Command Center - SecDash",
    on_load=[AuthState.check_auth, DefenseCenterState.load],
)
app.add_page(not_found, route="404", title="404 Page Not Found")
app.add_middleware(EventShapeGuard())
follow.use_app(app)  # follow loops ask its socket.io server whether their tab is still connected
app.register_lifespan_task(seed_default_sites)  # the demo sites of a new install, once per start
app.register_lifespan_task(run_monitor)
app.register_lifespan_task(run_simulation)
app.register_lifespan_task(run_threat_simulation)
app.register_lifespan_task(run_housekeeping)
app.register_lifespan_task(run_detection)
app.register_lifespan_task(run_job_workers)
