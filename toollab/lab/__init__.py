"""The lab: the countries world, a knob-driven simulated model, strategies, and the experiments they settle."""

from toollab.lab.countries.tasks import Task, generate_tasks, is_correct
from toollab.lab.countries.tools import Tamper, countries_tools
from toollab.lab.experiments import EXPERIMENTS, Report, Settings
from toollab.lab.simulated.knobs import Knobs
from toollab.lab.simulated.model import SimulatedModel
from toollab.lab.strategies.base import Outcome
from toollab.lab.strategies.solvers import plan_first, react, self_critique, single_stage

__all__ = [
    "EXPERIMENTS",
    "Knobs",
    "Outcome",
    "Report",
    "Settings",
    "SimulatedModel",
    "Tamper",
    "Task",
    "countries_tools",
    "generate_tasks",
    "is_correct",
    "plan_first",
    "react",
    "self_critique",
    "single_stage",
]
