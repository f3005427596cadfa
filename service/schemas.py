"""API schemas (pydantic): what the HTTP API accepts and returns, converted at the edges."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from service.job_options import JOB_OPTION_FIELDS, job_options_schema, job_tune_options


class Strict(BaseModel):
    """A request body: unknown fields are an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


# -- models ----------------------------------------------------------------------------------


class TaskInfo(BaseModel):
    """A tuning task of a model; for one over symbolic dims, the largest size of each size
    variable it is tuned for (`covers`: a kernel over a wide range is one task for the
    whole range and one for its small sizes)."""

    workload_key: str
    name: str
    flops: int
    weight: int
    covers: dict[str, int] = Field(default_factory=dict)


class ModelPublic(BaseModel):
    """An uploaded model: its id is the sha256 of its bytes."""

    id: str
    name: str
    size_bytes: int
    created_at: float
    inputs: list[dict[str, Any]]
    outputs: list[dict[str, Any]]
    flops: int
    fused_functions: list[dict[str, Any]]
    tasks: list[TaskInfo]


class ModelsPublic(BaseModel):
    """A page of models."""

    items: list[ModelPublic]
    total: int


# -- jobs ------------------------------------------------------------------------------------


class JobCreate(Strict):
    """A new job: a stored model (`model_id`) or one workload (`workload`: a Task's JSON)."""

    model_id: str | None = None
    workload: dict[str, Any] | None = None
    target: str = "llvm"
    trials: int = Field(gt=0, le=10_000_000)
    time_limit_s: float | None = Field(default=None, gt=0)
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="how the job tunes: any of the fields of `tuner.options.TuneOptions` a "
        f"job may set ({', '.join(JOB_OPTION_FIELDS)}); the rest take their defaults. "
        "measure.flush_cache left out or null: cold caches for a model's job on a CPU, "
        "warm for a single workload's",
        json_schema_extra={"properties": job_options_schema()},
    )

    @model_validator(mode="after")
    def _one_subject(self) -> JobCreate:
        if (self.model_id is None) == (self.workload is None):
            raise ValueError("give exactly one of model_id and workload")
        job_tune_options(self.options, 1, None, cold_caches=False)  # ValueError: a 422
        return self


class CurvePoint(BaseModel):
    """The best GFLOPS of a task after `trials` of this job's measurements."""

    trials: int
    best_gflops: float | None


class TaskProgressPublic(BaseModel):
    """One task of a job and how far its tuning got."""

    position: int
    workload_key: str
    name: str
    weight: int
    flops: int
    trials: int
    best_cost_s: float | None
    best_gflops: float | None
    curve: list[CurvePoint]


class JobPublic(BaseModel):
    """A job (without per-task detail)."""

    id: str
    model_id: str | None
    target: str
    trials: int
    time_limit_s: float | None
    options: dict[str, Any]
    state: str
    error: str
    trials_done: int
    created_at: float
    started_at: float | None
    finished_at: float | None


class JobDetail(JobPublic):
    """A job with its tasks' progress and tuning curves."""

    tasks: list[TaskProgressPublic]


class JobsPublic(BaseModel):
    """A page of jobs."""

    items: list[JobPublic]
    total: int


# -- records ---------------------------------------------------------------------------------


class RecordPublic(BaseModel):
    """A tuning record."""

    id: int
    candidate_id: str
    workload_key: str
    target: str
    trace: dict[str, Any]
    costs_s: list[float]
    median_cost_s: float | None
    status: str
    error: str
    time: float
    worker: str | None
    job_id: str | None
    timing: str  # "warm" (call after call) or "cold" (caches flushed before every run)


class RecordsPublic(BaseModel):
    """A page of records."""

    items: list[RecordPublic]


class ImportResult(BaseModel):
    """What a record import stored."""

    imported: int
    duplicates: int


# -- workers ---------------------------------------------------------------------------------


class WorkerRegister(Strict):
    """A worker introducing itself."""

    name: str = Field(min_length=1, max_length=200)
    target: str = Field(min_length=1, max_length=500)
    device: dict[str, Any] = Field(default_factory=dict)
    version: str = Field(default="", max_length=100)


class WorkerRegistered(BaseModel):
    """A registered worker's id and token."""

    worker_id: str
    token: str
    heartbeat_interval_s: float
    lease_timeout_s: float


class Heartbeat(Strict):
    """A worker's heartbeat."""

    state: Literal["idle", "busy"]
    batch_id: str | None = None


class Ok(BaseModel):
    """A plain acknowledgement."""

    ok: bool = True


class BatchCandidate(BaseModel):
    """One candidate of a leased batch."""

    candidate_id: str
    target: str
    task: dict[str, Any]
    trace: dict[str, Any]


class BatchPublic(BaseModel):
    """A leased batch."""

    batch_id: str
    lease_timeout_s: float
    measure_options: dict[str, Any]
    candidates: list[BatchCandidate]


class ResultItem(Strict):
    """One measured candidate."""

    candidate_id: str
    status: str
    costs_s: list[float] = Field(default_factory=list, max_length=10_000)
    error: str = Field(default="", max_length=100_000)
    build_s: float = 0.0
    measure_s: float = 0.0


class ResultsPost(Strict):
    """Results for a leased batch."""

    results: list[ResultItem] = Field(max_length=10_000)


class ResultsAccepted(BaseModel):
    """How many posted results were new and how many were repeats."""

    accepted: int
    duplicates: int


class Released(BaseModel):
    """How many candidates went back to the queue."""

    released: int


class WorkerPublic(BaseModel):
    """A worker in the fleet view."""

    id: str
    name: str
    target: str
    device: dict[str, Any]
    version: str
    state: str
    batch_id: str | None
    registered_at: float
    last_seen_at: float
    measured: int
    failed: int
    healthy: bool
    live_leases: int


class WorkersPublic(BaseModel):
    """The fleet."""

    items: list[WorkerPublic]


# -- tokens ----------------------------------------------------------------------------------


class TokenCreate(Strict):
    """A new API token."""

    name: str = Field(min_length=1, max_length=200)
    kind: Literal["admin", "user"] = "user"


class TokenPublic(BaseModel):
    """A token (never its secret)."""

    id: str
    name: str
    kind: str
    worker_id: str | None
    created_at: float
    revoked_at: float | None


class TokenCreated(TokenPublic):
    """A new token with its secret, shown once."""

    token: str


class TokensPublic(BaseModel):
    """Every token."""

    items: list[TokenPublic]


# -- artifacts -------------------------------------------------------------------------------


class ArtifactCreate(Strict):
    """Compile a stored model for a target with the best records in the database."""

    model_id: str
    target: str = "llvm"


class ArtifactPublic(BaseModel):
    """An artifact: its build state, and once ready its hash, size and coverage."""

    id: str
    model_id: str
    target: str
    state: str
    error: str
    sha256: str | None
    size_bytes: int | None
    coverage: list[dict[str, Any]]
    records_used: int
    created_at: float
    finished_at: float | None
