"""Loopback stand-ins for three provider APIs, for the wire-level tests.

One ``http.server`` on 127.0.0.1, in a thread, answering

- ``POST /v1/messages``: Anthropic Messages (SSE when asked to stream, JSON otherwise),
  with a thinking block (and its signature) before the text;
- ``POST /v1/chat/completions``: OpenAI Chat Completions (SSE chunks or one JSON body);
- ``POST /v1/responses``: OpenAI Responses (SSE events or one JSON body), with a
  reasoning summary before the message.

The real SDK clients (``anthropic``, ``openai``) talk to it through llm. Every
request body is kept, in order, in ``requests`` as (path, parsed JSON).
Requests whose system prompt is the memory extractor's get an empty
extraction answer; others get "Answer N".
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EXTRACTION_MARKER = "You maintain a long-term memory"
REASONING = "Let me think about the user."
SIGNATURE = "sig-abc"


def system_text(path: str, body: dict) -> str:
    "The request's system prompt as text, whichever API it is."
    if path.endswith("/messages"):
        system = body.get("system") or ""
        if isinstance(system, list):
            return "".join(block.get("text", "") for block in system)
        return system
    if path.endswith("/chat/completions"):
        return "".join(
            m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
            for m in body.get("messages", []) if m.get("role") in ("system", "developer")
        )
    return body.get("instructions") or ""


def is_extraction(path: str, body: dict) -> bool:
    return EXTRACTION_MARKER in system_text(path, body)


class _Handler(BaseHTTPRequestHandler):
    server: "FakeProviders"

    def log_message(self, *args):  # keep test output quiet
        pass

    def do_POST(self):  # noqa: N802 - http.server's name
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        path = self.path.split("?")[0]
        with self.server.lock:
            self.server.requests.append((path, body))
            number = sum(1 for p, b in self.server.requests if not is_extraction(p, b))
        text = (
            json.dumps({"facts": [], "updates": []})
            if is_extraction(path, body)
            else f"Answer {number}"
        )
        model = body.get("model", "fake")
        if path.endswith("/messages"):
            self._anthropic(body, text, model)
        elif path.endswith("/chat/completions"):
            self._chat(body, text, model)
        elif path.endswith("/responses"):
            self._responses(body, text, model)
        else:
            self.send_error(404)

    # Helpers ------------------------------------------------------------

    def _json(self, data: dict):
        raw = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _sse(self, events: list[tuple[str | None, object]]):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.end_headers()
        for name, data in events:
            chunk = "" if name is None else f"event: {name}\n"
            chunk += f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"
            self.wfile.write(chunk.encode())
        self.wfile.flush()
        self.close_connection = True

    # Anthropic Messages -------------------------------------------------

    def _anthropic(self, body, text, model):
        usage = {"input_tokens": 10, "output_tokens": 5,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        thinking = {"type": "thinking", "thinking": REASONING, "signature": SIGNATURE}
        message = {"id": "msg_1", "type": "message", "role": "assistant", "model": model,
                   "content": [thinking, {"type": "text", "text": text}],
                   "stop_reason": "end_turn", "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            self._json(message)
            return
        start = dict(message, content=[], stop_reason=None)
        events = [
            ("message_start", {"type": "message_start", "message": start}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "thinking_delta", "thinking": REASONING}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "signature_delta", "signature": SIGNATURE}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("content_block_start", {"type": "content_block_start", "index": 1,
                                     "content_block": {"type": "text", "text": ""}}),
        ]
        for piece in _pieces(text):
            events.append(("content_block_delta", {"type": "content_block_delta", "index": 1,
                                                   "delta": {"type": "text_delta", "text": piece}}))
        events += [
            ("content_block_stop", {"type": "content_block_stop", "index": 1}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": {"output_tokens": 5}}),
            ("message_stop", {"type": "message_stop"}),
        ]
        self._sse(events)

    # OpenAI Chat Completions --------------------------------------------

    def _chat(self, body, text, model):
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not body.get("stream"):
            self._json({"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": model,
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": text}}],
                        "usage": usage})
            return
        base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": model}
        events = [(None, dict(base, choices=[{"index": 0, "delta": {"role": "assistant", "content": ""},
                                              "finish_reason": None}]))]
        for piece in _pieces(text):
            events.append((None, dict(base, choices=[{"index": 0, "delta": {"content": piece},
                                                      "finish_reason": None}])))
        events.append((None, dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}])))
        events.append((None, dict(base, choices=[], usage=usage)))
        events.append((None, "[DONE]"))
        self._sse(events)

    # OpenAI Responses ---------------------------------------------------

    def _responses(self, body, text, model):
        reasoning = {"type": "reasoning", "id": "rs_1",
                     "summary": [{"type": "summary_text", "text": REASONING}]}
        message = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                   "content": [{"type": "output_text", "text": text, "annotations": []}]}
        usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                 "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens_details": {"reasoning_tokens": 2}}
        response = {"id": "resp_1", "object": "response", "created_at": 0, "status": "completed",
                    "model": model, "output": [reasoning, message], "usage": usage,
                    "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
        if not body.get("stream"):
            self._json(response)
            return
        in_progress = dict(response, status="in_progress", output=[], usage=None)
        events = [
            ("response.created", {"type": "response.created", "sequence_number": 0, "response": in_progress}),
            ("response.output_item.added", {"type": "response.output_item.added", "sequence_number": 1,
                                            "output_index": 0, "item": dict(reasoning, summary=[])}),
            ("response.reasoning_summary_text.delta", {
                "type": "response.reasoning_summary_text.delta", "sequence_number": 2, "item_id": "rs_1",
                "output_index": 0, "summary_index": 0, "delta": REASONING}),
            ("response.output_item.done", {"type": "response.output_item.done", "sequence_number": 3,
                                           "output_index": 0, "item": reasoning}),
            ("response.output_item.added", {"type": "response.output_item.added", "sequence_number": 4,
                                            "output_index": 1,
                                            "item": dict(message, status="in_progress", content=[])}),
        ]
        for piece in _pieces(text):
            events.append(("response.output_text.delta", {
                "type": "response.output_text.delta", "sequence_number": len(events), "item_id": "msg_1",
                "output_index": 1, "content_index": 0, "delta": piece, "logprobs": []}))
        events += [
            ("response.output_item.done", {"type": "response.output_item.done", "sequence_number": len(events),
                                           "output_index": 1, "item": message}),
            ("response.completed", {"type": "response.completed", "sequence_number": len(events) + 1,
                                    "response": response}),
        ]
        self._sse(events)


def _pieces(text: str) -> list[str]:
    "Stream a text in two pieces, so deltas really are joined."
    middle = len(text) // 2
    return [text[:middle], text[middle:]]


class FakeProviders(ThreadingHTTPServer):
    "The server; use as a context manager. ``url`` is its base address."

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, dict]] = []
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def chat_requests(self, path_end: str) -> list[dict]:
        "The bodies of non-extraction requests to the endpoint ending ``path_end``."
        return [b for p, b in self.requests if p.endswith(path_end) and not is_extraction(p, b)]

    def extraction_requests(self) -> list[tuple[str, dict]]:
        return [(p, b) for p, b in self.requests if is_extraction(p, b)]

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()
