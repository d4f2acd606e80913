"""A driver's or an SDK's own error, described by what it reports (its
SQLSTATE, SQLite's code and its name, an HTTP status and the service's
error code, a socket's error code, MySQL's error number as text, or
``"connection"`` for a connection lost without a code) as a :class:`_native.DriverFailure`, which tinystore's
core classifies. Nothing is decided here: this only reads the exception's
fields. The drivers are never imported here; an exception of theirs means
the program imported them."""

from __future__ import annotations

import errno
import sqlite3
import sys
from typing import Any

from .. import _native


def failure_of(err: BaseException) -> _native.DriverFailure:
    """What ``err`` reports, for core to classify."""
    message = str(err)
    if isinstance(err, sqlite3.Error):
        return _native.DriverFailure(
            message,
            sqlite_code=_int_or_none(getattr(err, "sqlite_errorcode", None)),
            error_code=_str_or_none(getattr(err, "sqlite_errorname", None)),
        )
    psycopg: Any = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(err, psycopg.Error):
        state = _str_or_none(err.sqlstate)
        lost = state is None and isinstance(err, psycopg.OperationalError)
        return _native.DriverFailure(message, sqlstate=state, error_code="connection" if lost else None)
    pymysql: Any = sys.modules.get("pymysql.err")
    if pymysql is not None and isinstance(err, pymysql.MySQLError):
        # PyMySQL's args are (error number, message); the number is the
        # server's (1142) or the client's (2013: the connection was lost).
        number = err.args[0] if err.args else None
        if isinstance(err, pymysql.InterfaceError) or number == 0:
            return _native.DriverFailure(message, error_code="connection")
        return _native.DriverFailure(message, error_code=str(number) if _int_or_none(number) is not None else None)
    botocore: Any = sys.modules.get("botocore.exceptions")
    if botocore is not None:
        if isinstance(err, botocore.ClientError):
            response = err.response if isinstance(err.response, dict) else {}
            code = _str_or_none(response.get("Error", {}).get("Code"))
            # A cancelled DynamoDB transaction: the first reason given.
            reasons = response.get("CancellationReasons")
            if code == "TransactionCanceledException" and isinstance(reasons, list):
                given = [r.get("Code") for r in reasons if isinstance(r, dict) and r.get("Code") not in (None, "None")]
                code = _str_or_none(given[0]) if given else code
            return _native.DriverFailure(
                message,
                http_status=_int_or_none(response.get("ResponseMetadata", {}).get("HTTPStatusCode")),
                error_code=code,
            )
        if isinstance(err, (botocore.ConnectionError, botocore.HTTPClientError)):
            return _native.DriverFailure(message, error_code="connection")
    google: Any = sys.modules.get("google.api_core.exceptions")
    if google is not None and isinstance(err, google.GoogleAPICallError):
        return _native.DriverFailure(message, http_status=_int_or_none(err.code))
    requests: Any = sys.modules.get("requests.exceptions")
    if requests is not None and isinstance(err, (requests.ConnectionError, requests.Timeout)):
        return _native.DriverFailure(message, error_code="connection")
    azure: Any = sys.modules.get("azure.core.exceptions")
    if azure is not None and isinstance(err, azure.AzureError):
        if isinstance(err, azure.HttpResponseError):
            code = err.error_code
            return _native.DriverFailure(
                message, http_status=_int_or_none(err.status_code), error_code=_str_or_none(str(code) if code else None)
            )
        if isinstance(err, (azure.ServiceRequestError, azure.ServiceResponseError)):
            return _native.DriverFailure(message, error_code="connection")
    redis: Any = sys.modules.get("redis.exceptions")
    if redis is not None and isinstance(err, redis.RedisError):
        if isinstance(err, redis.AuthenticationError):
            return _native.DriverFailure(message, error_code="NOAUTH")
        if isinstance(err, (redis.ConnectionError, redis.TimeoutError)):
            return _native.DriverFailure(message, error_code="connection")
        # A server's error starts with its code: "WRONGTYPE Operation ...".
        word = message.split(" ", 1)[0]
        return _native.DriverFailure(message, error_code=word if word.isupper() else None)
    if isinstance(err, OSError) and err.errno is not None and err.errno in errno.errorcode:
        return _native.DriverFailure(message, error_code=errno.errorcode[err.errno])
    return _native.DriverFailure(message)


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
