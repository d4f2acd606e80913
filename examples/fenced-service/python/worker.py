"""The fenced-service example's Python worker: holds key N of the lock
group "summaries" (renew on), then posts its summary to the service with
its lease's fence in the Tinystore-Fence header (tinystore.http.headers).

    worker.py --store ADDRESS --service URL --chat N --ttl-ms T

Prints ``HELD <fence>``; waits for a line on stdin; POSTs "summary by
python" to URL/chats/N/summary and prints ``POSTED <status> <fence>``;
releases and prints ``RELEASED ok`` (or ``RELEASED <code>`` when the lease
was lost meanwhile); exits 0.
"""

from __future__ import annotations

import argparse
import sys
import urllib.error
import urllib.request

import tinystore
import tinystore.http


def post(url: str, body: bytes, fence: int) -> int:
    request = urllib.request.Request(url, body, headers=tinystore.http.headers(fence), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            status: int = answer.status
    except urllib.error.HTTPError as err:  # 4xx and 5xx: the status is the answer
        status = err.code
        err.close()
    return status


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", required=True)
    parser.add_argument("--service", required=True)
    parser.add_argument("--chat", type=int, required=True)
    parser.add_argument("--ttl-ms", type=int, required=True)
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]

    with tinystore.connect(args.store) as store:
        locks = store.locks("summaries", ttl=args.ttl_ms / 1000, renew=True)
        lease = locks.acquire_sync(str(args.chat))
        print(f"HELD {lease.fence}")
        sys.stdin.readline()
        status = post(f"{args.service}/chats/{args.chat}/summary", b"summary by python", lease.fence)
        print(f"POSTED {status} {lease.fence}")
        try:
            lease.release_sync()
            print("RELEASED ok")
        except tinystore.Error as err:
            print(f"RELEASED {err.code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
