"""Change requests turned into proposals by code plus one constrained model reply (issue 16): see proposer.py."""

from agent.change_contract.proposer import ContractOutcome, ContractProposer

__all__ = ["ContractOutcome", "ContractProposer"]
