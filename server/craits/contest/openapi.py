"""The API's OpenAPI 3.1 description, served at ``/openapi.json``.

Written out here rather than generated from docstrings: it is the contract clients are written
against, so it is read and reviewed as one document. ``tests/contest/test_api.py`` checks that
it names exactly the routes the application serves, with their methods.
"""

from __future__ import annotations

from typing import Any

from craits import __version__

_ERROR = {"description": "what was wrong and what to do",
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _json(description: str, schema: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}


def _errors(*codes: int) -> dict[str, Any]:
    return {str(code): _ERROR for code in codes}


_VERSION_ID = [{"name": "version_id", "in": "path", "required": True,
                "schema": {"type": "integer"}}]
_AUTH: list[dict[str, list[str]]] = [{"bearer": []}]


def openapi_spec() -> dict[str, Any]:
    """The whole specification."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "Craits contest API", "version": __version__,
                 "description": "Upload bots, follow their versions, read the board "
                 "(docs/contests.md). Every call but the public ones needs "
                 "'Authorization: Bearer <token>'."},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
                       "schemas": _SCHEMAS},
        "security": _AUTH,
        "paths": {
            "/openapi.json": {"get": {"summary": "this specification", "security": [],
                                      "responses": {"200": {"description": "OpenAPI 3.1"}}}},
            "/api/v1/contest": {"get": {
                "summary": "the contest: name, phase and its dates, how to join, tables, rules",
                "security": [], "responses": {"200": _json("the contest", "Contest")}}},
            "/api/v1/standings": {"get": {
                "summary": "the public board (empty until games are played)", "security": [],
                "responses": {"200": _json("the board", "Standings")}}},
            "/api/v1/register": {"post": {
                "summary": "join the contest (only when contest.toml has join = \"open\")",
                "security": [],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string", "minLength": 1,
                                            "maxLength": 64}}}}}},
                "responses": {"201": _json("your token, shown once", "Registered"),
                              **_errors(403, 409, 413, 422)}}},
            "/api/v1/me": {"get": {
                "summary": "who the token belongs to, and their versions",
                "responses": {"200": _json("you", "Me"), **_errors(401)}}},
            "/api/v1/versions": {
                "get": {"summary": "your versions, newest first",
                        "responses": {"200": _json("your versions", "Versions"),
                                      **_errors(401)}},
                "post": {
                    "summary": "upload a bot: the body is an archive (tar, tar.gz or zip with "
                    "craits-bot.toml) or one .py or .js source file",
                    "parameters": [{"name": "filename", "in": "query", "required": True,
                                    "schema": {"type": "string"},
                                    "description": "the uploaded file's name, e.g. bot.py"}],
                    "requestBody": {"required": True, "content": {
                        "application/octet-stream": {"schema": {"type": "string",
                                                                "format": "binary"}}}},
                    "responses": {
                        "201": _json("a new version, now validating", "Upload"),
                        "200": _json("the same content as one of your versions", "Upload"),
                        **_errors(401, 403, 413, 422),
                        "429": {**_ERROR, "description": "too many uploads; wait as long as "
                                "the Retry-After header says", "headers": {"Retry-After": {
                                    "schema": {"type": "integer"},
                                    "description": "seconds"}}},
                    }},
            },
            "/api/v1/versions/{version_id}": {"get": {
                "summary": "one of your versions", "parameters": _VERSION_ID,
                "responses": {"200": _json("the version", "Version"),
                              **_errors(401, 403, 404)}}},
            "/api/v1/versions/{version_id}/log": {"get": {
                "summary": "the log excerpt of one of your versions (its validation)",
                "parameters": _VERSION_ID,
                "responses": {"200": _json("the log", "Log"), **_errors(401, 403, 404)}}},
            "/api/v1/versions/{version_id}/faults": {"get": {
                "summary": "the faults recorded against one of your versions, newest first",
                "parameters": _VERSION_ID,
                "responses": {"200": _json("the faults", "Faults"), **_errors(401, 403, 404)}}},
        },
    }


_STATE = {"type": "string", "enum": ["validating", "rejected", "rated", "suspended"]}
_SUMMARY_PROPS: dict[str, Any] = {
    "id": {"type": "integer"}, "number": {"type": "integer",
                                          "description": "1, 2, ... for each contestant"},
    "hash": {"type": "string", "description": "SHA-256 of the unpacked content"},
    "state": _STATE, "reason": {"type": ["string", "null"],
                                "description": "why it was rejected or suspended"},
    "created_at": {"type": "number", "description": "Unix time"},
    "state_at": {"type": "number"}, "source": {"type": "string"},
}
_SCHEMAS: dict[str, Any] = {
    "Error": {"type": "object", "required": ["error"],
              "properties": {"error": {"type": "string"}}},
    "VersionSummary": {"type": "object", "properties": {
        **_SUMMARY_PROPS,
        "history": {"type": "array", "description": "the board's row for it after each refit, "
                    "oldest first (the latest 200)", "items": {"type": "object"}},
        "verdict": {"type": ["object", "null"], "description": "against the contestant's "
                    "previous version that played, from their games together: elo, low, "
                    "high, los (null below the minimum of deal sets), deal_sets, note"}}},
    "Version": {"type": "object", "properties": {
        **_SUMMARY_PROPS, "command": {"type": "string"},
        "runtime": {"type": "string", "enum": ["python", "node", "native"]},
        "files": {"type": "integer"}, "bytes": {"type": "integer"}}},
    "Versions": {"type": "object", "properties": {"versions": {
        "type": "array", "items": {"$ref": "#/components/schemas/VersionSummary"}}}},
    "Me": {"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"},
        "versions": {"type": "array", "items": {"$ref": "#/components/schemas/VersionSummary"}}}},
    "Upload": {"type": "object", "properties": {
        "outcome": {"type": "string", "enum": ["new", "same"]},
        "message": {"type": "string"}, "version": {"$ref": "#/components/schemas/Version"}}},
    "Log": {"type": "object", "properties": {"id": {"type": "integer"}, "state": _STATE,
                                             "log": {"type": "string"}}},
    "Faults": {"type": "object", "properties": {"id": {"type": "integer"}, "faults": {
        "type": "array", "items": {"type": "object", "properties": {
            "at": {"type": "number"}, "game": {"type": ["string", "null"]},
            "reason": {"type": "string"}}}}}},
    "Registered": {"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"},
        "token": {"type": "string", "description": "shown once; keep it secret"}}},
    "Contest": {"type": "object", "properties": {
        "name": {"type": "string"},
        "phase": {"type": "string", "enum": ["before", "open", "frozen", "finals", "done"]},
        "phases": {"type": "object"}, "join": {"type": "string", "enum": ["organiser", "open"]},
        "seats": {"type": "array", "items": {"type": "integer"}},
        "playing_versions": {"type": "integer"}, "rules": {"type": "object"},
        "time": {"type": "object"}, "contestants": {"type": "integer"}}},
    "Standings": {"type": "object", "properties": {
        "contest": {"type": "string"}, "phase": {"type": "string"},
        "rows": {"type": "array", "items": {"type": "object"}}}},
}
