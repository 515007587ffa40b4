"""Locust as a load engine: a closed-model scenario run by a master and two workers on a real
server — every user numbered once across the workers, the answers counted, histograms and
per-second series in loadgen's document, the warm-up applied — and the models it cannot run
refused with one line."""

import http.server
import threading
from collections import Counter

import pytest
from hdrh.histogram import HdrHistogram

from arena.engines.interface import EngineError
from arena.engines.locust.engine import Locust
from arena.engines.warmup_rule import Rule, Slice, agrees

USERS = 6


@pytest.fixture
def counting_server():
    """A server on loopback that answers every GET and remembers each path it was asked."""
    seen: Counter = Counter()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            seen[self.path] += 1
            body = b'{"user":"%s"}' % self.path.rsplit("/", 1)[-1].encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], seen
    server.shutdown()


def scenario(port: int) -> dict:
    return {
        "target": f"http://127.0.0.1:{port}",
        "model": {"kind": "closed", "users": USERS, "think_ms": [100, 100], "ramp_per_s": 0, "duration_s": 2},
        "steps": [
            {"name": "who", "method": "GET", "path": "/user/{user}", "expect": [200], "expect_json": {"user": "{user}"}}
        ],
        "keep_alive": True,
        "timeout_ms": 5000,
        "warmup": {"slice_s": 0.5, "window": 2, "max_s": 4, "rps_tolerance": 0.5, "p50_tolerance": 1, "floor_ms": 5},
    }


def test_two_workers_share_the_users_and_report_like_loadgen(counting_server):
    port, seen = counting_server
    run = Locust(workers=2).run(scenario(port), [0, 1], timeout=30)
    result = run.result

    assert sorted(seen) == [f"/user/{i}" for i in range(USERS)]  # each user once, none twice, across workers
    assert [w["index"] for w in sorted(result["engine"]["workers"], key=lambda w: w["index"])] == [0, 1]
    assert result["elapsed_s"] == 2.0 and len(result["series"]) == 2
    requests = result["requests"]
    # 6 users, a request every ~0.1 s plus its time: about 100 in 2 s, every one answered as expected.
    assert 60 <= requests["total"] <= 130 and requests["ok"] == requests["total"]
    assert sum(s["completed"] for s in result["series"]) == requests["total"]
    step = result["steps"][0]
    assert step["name"] == "who" and step["statuses"] == {"200": requests["total"]}
    histogram = HdrHistogram.decode(step["histogram"])
    assert histogram.get_total_count() == requests["total"]
    assert histogram.get_value_at_percentile(50) == result["all"]["latency_us"]["p50"] > 0
    warmup = result["warmup"]
    assert warmup["slices"] and warmup["measured_from_s"] >= warmup["seconds"]
    assert run.cpu_s > 0 and 0 < run.busiest < 1 and run.version.startswith("locust ")


def test_a_wrong_answer_is_a_content_error(counting_server):
    port, _ = counting_server
    wrong = scenario(port)
    wrong["steps"][0]["expect_json"] = {"user": "nobody"}
    result = Locust(workers=1).run(wrong, [1], timeout=30).result
    assert result["requests"]["ok"] == 0 and result["requests"]["errors"]["content"] == result["requests"]["total"] > 0


@pytest.mark.parametrize("model", [{"kind": "open", "rate": 10, "duration_s": 1}, {"kind": "fixed", "requests": 10}])
def test_models_locust_cannot_keep_are_refused(model):
    with pytest.raises(EngineError, match="Locust runs closed models only"):
        Locust().check({"model": model})


@pytest.mark.parametrize(
    ("rps", "p50", "steady"),
    [
        ([100, 100], [1.0, 1.0], True),
        ([100, 104], [1.0, 1.0], False),  # a trend: the last more than half the band above the first
        ([100, 130], [1.0, 1.0], False),  # outside the band
        ([100, 101], [1.0, 9.0], False),  # median latency apart by more than band and floor
        ([0, 0], [0.0, 0.0], False),  # nothing answered is not steady
        ([100], [1.0], False),  # not enough slices
    ],
)
def test_the_steadiness_rule_in_python(rps, p50, steady):
    rule = Rule(slice_s=1, max_s=10, window=2, rps_tolerance=0.05, p50_tolerance=0.25, floor_ms=2)
    slices = [Slice(i, r, p, p, 0.0) for i, (r, p) in enumerate(zip(rps, p50, strict=True))]
    assert agrees(slices, rule) is steady
