"""What every HTTP model backend shares: timeouts, retries with backoff, shared rate limits, failure attribution.

Retries: on 429, 5xx, timeouts and connection errors, with exponential backoff and full jitter, honouring a
`Retry-After` header. Other 4xx are not retried. Every failure becomes a `ModelError` whose `source` says who
failed: "provider" (unavailable, overloaded, refused our credentials) or "harness" (the provider rejected the
request we built: 400, 413, 422).

Rate limits: `RateLimit(requests_per_minute, tokens_per_minute)` objects are shared by name, so concurrent
runs against one endpoint draw from the same budget, across event loops and threads.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx

from toollab.harness.messages import AssistantMessage, Message, Usage
from toollab.harness.model import ModelError, ModelResponse
from toollab.harness.request import RequestParams

RETRYABLE = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
HARNESS_FAULTS = frozenset({400, 413, 422})


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay: float = 0.5  # seconds; doubles each attempt
    max_delay: float = 30.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Full jitter: a uniform draw up to the exponential bound; a server's Retry-After wins when given."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        return rng.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


DEFAULT_RETRY = RetryPolicy()


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A Retry-After header as seconds: delta-seconds or an HTTP date."""
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


class TokenBucket:
    """A reservation token bucket: `reserve(n)` takes n now and says how long to wait before using them."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic):
        if per_minute <= 0:
            raise ValueError("a rate limit must be positive")
        self.capacity = per_minute
        self.rate = per_minute / 60.0
        self.clock = clock
        self.tokens = per_minute
        self.updated = clock()
        self.lock = threading.Lock()

    def reserve(self, n: float) -> float:
        with self.lock:
            now = self.clock()
            self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
            self.updated = now
            self.tokens -= min(n, self.capacity)  # a request larger than a minute's budget waits one full minute
            return 0.0 if self.tokens >= 0 else -self.tokens / self.rate

    def refund(self, n: float) -> None:
        """Give back tokens reserved on an estimate that turned out too high (or take more if it was low)."""
        with self.lock:
            self.tokens = min(self.capacity, self.tokens + n)


class RateLimit:
    """Requests and tokens per minute for one endpoint. Get shared instances with `RateLimit.shared(name, ...)`."""

    _registry: ClassVar[dict[str, RateLimit]] = {}
    _registry_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.requests = TokenBucket(requests_per_minute, clock) if requests_per_minute else None
        self.tokens = TokenBucket(tokens_per_minute, clock) if tokens_per_minute else None

    @classmethod
    def shared(
        cls, name: str, requests_per_minute: float | None = None, tokens_per_minute: float | None = None
    ) -> RateLimit:
        with cls._registry_lock:
            if name not in cls._registry:
                cls._registry[name] = cls(requests_per_minute, tokens_per_minute)
            return cls._registry[name]

    def reserve(self, estimated_tokens: int) -> float:
        """Seconds to wait before sending a request of about `estimated_tokens` tokens."""
        waits = [0.0]
        if self.requests:
            waits.append(self.requests.reserve(1))
        if self.tokens:
            waits.append(self.tokens.reserve(estimated_tokens))
        return max(waits)

    def settle(self, estimated_tokens: int, actual_tokens: int) -> None:
        if self.tokens:
            self.tokens.refund(estimated_tokens - actual_tokens)


class HttpTransport:
    """POSTs JSON to one provider with retries and rate limits. One httpx client per event loop."""

    def __init__(
        self,
        base_url: str,
        headers: dict[str, str],
        *,
        timeout: float = 60.0,
        retry: RetryPolicy = RetryPolicy(),
        rate_limit: RateLimit | None = None,
        seed: int | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.headers = headers
        self.timeout = timeout
        self.retry = retry
        self.rate_limit = rate_limit
        self.rng = random.Random(seed)
        self.retries = 0  # retries made so far, for the operational figures
        # an httpx client belongs to the loop it was made on; asyncio.run makes a new loop each time
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or client.is_closed:
            client = httpx.AsyncClient(base_url=self.base_url, headers=self.headers, timeout=self.timeout)
            self._clients[loop] = client
        return client

    async def post(self, path: str, payload: dict[str, Any], estimated_tokens: int = 0) -> tuple[dict[str, Any], int]:
        """The decoded JSON response and how many retries it took. Raises ModelError when it cannot succeed."""
        if self.rate_limit is not None:
            wait = self.rate_limit.reserve(estimated_tokens)
            if wait > 0:
                await asyncio.sleep(wait)
        retries = 0
        while True:
            answer, retry_after = await self._attempt(path, payload)
            if not isinstance(answer, ProviderError):
                return answer, retries
            if answer.source != "provider" or not answer.retryable or retries >= self.retry.max_retries:
                answer.retries = retries
                raise answer
            await asyncio.sleep(self.retry.delay(retries, retry_after, self.rng))
            retries += 1
            self.retries += 1

    async def _attempt(self, path: str, payload: dict[str, Any]) -> tuple[dict[str, Any] | ProviderError, float | None]:
        """One request: the decoded body, or the error (and its Retry-After, in seconds)."""
        try:
            response = await self._client().post(path, json=payload)
        except httpx.TimeoutException as exc:
            return ProviderError(f"timed out after {self.timeout:g} s ({type(exc).__name__})", retryable=True), None
        except httpx.TransportError as exc:
            return ProviderError(f"connection failed: {type(exc).__name__}: {exc}", retryable=True), None
        if response.status_code >= 400:
            body = response.text[:300]
            source = "harness" if response.status_code in HARNESS_FAULTS else "provider"
            error = ProviderError(
                f"HTTP {response.status_code} from {self.base_url}{path}: {body}",
                source=source,
                retryable=response.status_code in RETRYABLE,
                status=response.status_code,
            )
            return error, retry_after_seconds(response.headers.get("retry-after"))
        try:
            data = response.json()
        except ValueError:
            return ProviderError(f"the response is not JSON: {response.text[:200]!r}", retryable=True), None
        except RecursionError:  # JSON nested thousands of levels deep
            return ProviderError("the response nests too deeply to read", retryable=True), None
        if not isinstance(data, dict):
            return ProviderError(f"the response is not a JSON object: {response.text[:200]!r}", retryable=False), None
        return data, None

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()


class HttpModel(ABC):
    """A model behind an HTTP API. Subclasses build the request body and read the response; the request flow
    (rate limit, retries, shape errors attributed to the provider, usage settled against the estimate) is here."""

    path: ClassVar[str]

    def __init__(
        self,
        provider: str,
        model: str,
        base_url: str,
        headers: dict[str, str],
        *,
        timeout: float,
        retry: RetryPolicy,
        requests_per_minute: float | None,
        tokens_per_minute: float | None,
    ):
        self.model = model
        self.base_url = base_url
        self.name = f"{provider}:{model}"
        # the rate limit (if any) is shared by everything that calls the same endpoint
        limit = (
            RateLimit.shared(f"{provider}:{base_url}", requests_per_minute, tokens_per_minute)
            if requests_per_minute or tokens_per_minute
            else None
        )
        self.transport = HttpTransport(base_url, headers, timeout=timeout, retry=retry, rate_limit=limit)

    @abstractmethod
    def payload(self, messages: Sequence[Message], params: RequestParams) -> dict[str, Any]:
        """The request body, with the request's tools, tool choice and parallel setting in the provider's terms."""

    @abstractmethod
    def parse(self, data: dict[str, Any]) -> tuple[AssistantMessage, Usage, dict[str, Any]]:
        """The assistant turn, its usage and metadata, from a response body (KeyError and the like on a bad shape)."""

    async def request(self, messages: Sequence[Message], params: RequestParams) -> ModelResponse:
        body = self.payload(messages, params)
        estimate = estimate_tokens(body)
        data, retries = await self.transport.post(self.path, body, estimate)
        try:
            message, usage, metadata = self.parse(data)
        except (KeyError, IndexError, TypeError, ValueError, AssertionError) as exc:
            raise ProviderError(f"unexpected response shape ({type(exc).__name__}: {exc}): {str(data)[:200]}") from exc
        if self.transport.rate_limit is not None:
            self.transport.rate_limit.settle(estimate, usage.total_tokens)
        return ModelResponse(message, usage, metadata={"retries": retries, **metadata})


class ProviderError(ModelError):
    """A failed provider call, with its HTTP status (if any) and whether retrying could help."""

    def __init__(self, message: str, *, source: str = "provider", retryable: bool = False, status: int | None = None):
        super().__init__(message, source=source)
        self.retryable = retryable
        self.status = status
        self.retries = 0


def estimate_tokens(payload: Any) -> int:
    """A rough token count for rate limiting before the provider reports the real one (4 characters a token)."""
    return len(str(payload)) // 4 + 1
