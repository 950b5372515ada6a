"""Embedding and reranking models (fastembed dense, qdrant-edge BM25, cross-encoders)."""
