"""Model backends behind one interface (`toollab.harness.model.Model`)."""

from toollab.models.scripted import FunctionModel, ScriptedModel, call

__all__ = ["FunctionModel", "ScriptedModel", "call"]
