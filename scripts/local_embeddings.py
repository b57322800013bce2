"""A local sentence-embedding model behind OpenAI's `/v1/embeddings` and `/v1/models` on 127.0.0.1, for recall by
meaning offline (docs/recall.md). `scripts/local_model.py embeddings` prepares its virtual environment and
files and runs this module there; it is never imported by the project, its tests or CI.

The model is all-MiniLM-L6-v2 as int8 ONNX with its WordPiece tokenizer: each text is tokenized (at most
MAX_TOKENS), run through the model, its token vectors averaged over the attention mask and made unit length, which is
how sentence-transformers pools this model. A request holds at most MAX_TEXTS texts of at most MAX_TEXT_CHARS each;
anything else is a 400 in OpenAI's error shape. Standard library HTTP; onnxruntime, tokenizers and numpy from the
environment local_model.py made.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_TEXTS = 256
MAX_TEXT_CHARS = 8000
MAX_TOKENS = 256
MAX_BODY_BYTES = 8 * 1024 * 1024
BATCH = 32


class Model:
    """The ONNX model and its tokenizer; `embed` is safe from several threads (one run at a time)."""

    def __init__(self, model_path: str, tokenizer_path: str, threads: int) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        self.session = onnxruntime.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
        self.inputs = {item.name for item in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(tokenizer_path)
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding()
        self.lock = threading.Lock()

    def embed(self, texts: list[str]) -> tuple[list[list[float]], int]:
        """Unit vectors, in order, and the tokens counted."""
        import numpy

        order = sorted(range(len(texts)), key=lambda n: len(texts[n]))  # like lengths together: less padding
        vectors: list[list[float]] = [[] for _ in texts]
        tokens = 0
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            encoded = self.tokenizer.encode_batch([texts[n] for n in chosen])
            ids = numpy.array([e.ids for e in encoded], dtype=numpy.int64)
            mask = numpy.array([e.attention_mask for e in encoded], dtype=numpy.int64)
            tokens += int(mask.sum())
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": numpy.zeros_like(ids)}
            with self.lock:
                hidden = self.session.run(None, {name: value for name, value in feed.items() if name in self.inputs})[0]
            weights = mask[..., None].astype(numpy.float32)
            pooled = (hidden * weights).sum(axis=1) / numpy.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= numpy.clip(numpy.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            for n, vector in zip(chosen, pooled, strict=True):
                vectors[n] = [round(float(x), 6) for x in vector]
        return vectors, tokens


def texts_of(body: object) -> list[str] | str:
    """The request's texts, or why it is refused (one sentence)."""
    if not isinstance(body, dict):
        return "The body must be a JSON object."
    given = body.get("input")
    texts = [given] if isinstance(given, str) else given
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        return "'input' must be a text or a list of texts."
    if len(texts) > MAX_TEXTS:
        return f"At most {MAX_TEXTS} texts a request."
    if any(len(t) > MAX_TEXT_CHARS for t in texts):
        return f"A text may hold at most {MAX_TEXT_CHARS} characters."
    return texts


def handler(model: Model, name: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def _send(self, status: int, data: dict) -> None:
            raw = json.dumps(data).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _error(self, status: int, message: str) -> None:
            self._send(status, {"error": {"message": message, "type": "invalid_request_error", "code": status}})

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": name, "object": "model", "owned_by": "local"}]})
            else:
                self._error(404, "There is /v1/models and /v1/embeddings here.")

        def do_POST(self) -> None:  # noqa: N802
            if self.path.rstrip("/") != "/v1/embeddings":
                self._error(404, "There is /v1/models and /v1/embeddings here.")
                return
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= MAX_BODY_BYTES:
                self._error(400, f"The body must hold 1 to {MAX_BODY_BYTES} bytes.")
                return
            try:
                texts = texts_of(json.loads(self.rfile.read(length)))
            except ValueError:
                texts = "The body is not JSON."
            if isinstance(texts, str):
                self._error(400, texts)
                return
            vectors, tokens = model.embed(texts)
            data = [{"object": "embedding", "index": n, "embedding": v} for n, v in enumerate(vectors)]
            usage = {"prompt_tokens": tokens, "total_tokens": tokens}
            self._send(200, {"object": "list", "data": data, "model": name, "usage": usage})

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="the ONNX file")
    parser.add_argument("--tokenizer", required=True, help="its tokenizer.json")
    parser.add_argument("--name", required=True, help="the model's name in /v1/models and the answers")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    model = Model(args.model, args.tokenizer, args.threads)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(model, args.name))
    print(f"Serving {args.name} on http://127.0.0.1:{server.server_address[1]}/v1 (Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
