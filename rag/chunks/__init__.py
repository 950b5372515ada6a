"""Cutting notes into heading-aware chunks sized in the dense model's tokens."""
