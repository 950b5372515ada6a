"""The LLM endpoints: rotation and failover, per-endpoint keys, pooled connections, probes, each one's model."""
