"""The propose-only write tools: each plans a change to the vault, the toolbox stores it as a proposal."""

from agent.propose.toolbox import WRITE_TOOLS, ProposalToolbox

__all__ = ["WRITE_TOOLS", "ProposalToolbox"]
