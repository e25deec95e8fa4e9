import Foundation

/// The API described in OpenAPI 3.1, served at `GET /openapi.json`. A test checks that every route the
/// server answers is described here, and that every response matches these schemas.
enum OpenAPIDocument {
    static let json = Data(text.utf8)

    private static let text = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "Kuroneko",
            "version": "0.1.0",
            "description": "Yamato Transport (クロネコヤマト) parcel tracking as clean data. Shipments are the library's JSON (docs/SCHEMA.md) plus fetched_at."
          },
          "paths": {
            "/v1/shipments/{number}": {
              "get": {
                "summary": "One shipment",
                "parameters": [
                  {"name": "number", "in": "path", "required": true, "description": "12 digits; hyphens, spaces and full-width digits are accepted", "schema": {"type": "string"}},
                  {"name": "refresh", "in": "query", "required": false, "description": "1 skips a fresh cached answer (rate limited per number)", "schema": {"type": "string", "enum": ["0", "1"]}}
                ],
                "responses": {
                  "200": {"description": "The shipment; X-Cache says hit, miss or stale", "headers": {"X-Cache": {"schema": {"type": "string", "enum": ["hit", "miss", "stale"]}}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Shipment"}}}},
                  "400": {"$ref": "#/components/responses/Problem"},
                  "502": {"$ref": "#/components/responses/Problem"},
                  "503": {"$ref": "#/components/responses/Unavailable"},
                  "504": {"$ref": "#/components/responses/Problem"}
                }
              }
            },
            "/v1/shipments": {
              "get": {
                "summary": "Up to 50 shipments",
                "parameters": [
                  {"name": "numbers", "in": "query", "required": true, "description": "Comma-separated tracking numbers, 1 to 50", "schema": {"type": "string"}},
                  {"name": "refresh", "in": "query", "required": false, "schema": {"type": "string", "enum": ["0", "1"]}}
                ],
                "responses": {
                  "200": {"description": "Shipments in request order; invalid numbers and upstream failures in errors", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ShipmentList"}}}},
                  "400": {"$ref": "#/components/responses/Problem"},
                  "502": {"$ref": "#/components/responses/Problem"},
                  "503": {"$ref": "#/components/responses/Unavailable"},
                  "504": {"$ref": "#/components/responses/Problem"}
                }
              }
            },
            "/v1/shipments/query": {
              "post": {
                "summary": "Up to 100 shipments",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["numbers"], "properties": {"numbers": {"type": "array", "minItems": 1, "maxItems": 100, "items": {"type": "string"}}}}}}},
                "responses": {
                  "200": {"description": "Shipments in request order; invalid numbers and upstream failures in errors", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ShipmentList"}}}},
                  "400": {"$ref": "#/components/responses/Problem"},
                  "413": {"$ref": "#/components/responses/Problem"},
                  "502": {"$ref": "#/components/responses/Problem"},
                  "503": {"$ref": "#/components/responses/Unavailable"},
                  "504": {"$ref": "#/components/responses/Problem"}
                }
              }
            },
            "/healthz": {"get": {"summary": "Liveness", "responses": {"200": {"description": "The process is up", "content": {"application/json": {"schema": {"type": "object", "required": ["status"], "properties": {"status": {"type": "string", "enum": ["ok"]}}}}}}}}},
            "/readyz": {"get": {"summary": "Readiness", "responses": {"200": {"description": "Ready to ask Yamato: the circuit is closed, or half-open (the next POST is a probe)", "content": {"application/json": {"schema": {"type": "object", "required": ["status", "circuit"], "properties": {"status": {"type": "string", "enum": ["ready"]}, "circuit": {"type": "string", "enum": ["closed", "half_open"]}}}}}}, "503": {"$ref": "#/components/responses/Problem"}}}},
            "/metrics": {"get": {"summary": "Prometheus metrics", "responses": {"200": {"description": "Text exposition format 0.0.4", "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
            "/openapi.json": {"get": {"summary": "This document", "responses": {"200": {"description": "OpenAPI 3.1", "content": {"application/json": {"schema": {"type": "object"}}}}}}}
          },
          "components": {
            "responses": {
              "Problem": {"description": "RFC 9457 problem document", "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}},
              "Unavailable": {"description": "Yamato is not asked now: the circuit is open after repeated failures, or the queue ahead is longer than the lookup's deadline; Retry-After says when to ask again", "headers": {"Retry-After": {"schema": {"type": "string"}}}, "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}
            },
            "schemas": {
              "Problem": {"type": "object", "required": ["type", "title", "status", "detail"], "properties": {"type": {"type": "string"}, "title": {"type": "string"}, "status": {"type": "integer"}, "detail": {"type": "string"}}},
              "StatusCode": {"type": "string", "enum": ["info_received", "in_transit", "out_for_delivery", "available_for_pickup", "attempt_failed", "delivered", "exception", "returned", "not_found", "invalid_number", "unknown"]},
              "Status": {"type": "object", "required": ["code", "label", "label_en", "summary", "note", "terminal"], "properties": {"code": {"$ref": "#/components/schemas/StatusCode"}, "label": {"type": "string"}, "label_en": {"type": ["string", "null"]}, "summary": {"type": ["string", "null"]}, "note": {"type": ["string", "null"]}, "terminal": {"type": "boolean"}}},
              "Event": {"type": "object", "required": ["label", "label_en", "code", "at", "date_text", "place"], "properties": {"label": {"type": "string"}, "label_en": {"type": ["string", "null"]}, "code": {"$ref": "#/components/schemas/StatusCode"}, "at": {"type": ["string", "null"]}, "date_text": {"type": ["string", "null"]}, "place": {"type": ["string", "null"]}}},
              "ScheduledDelivery": {"type": ["object", "null"], "required": ["raw", "date", "window_start", "window_end"], "properties": {"raw": {"type": "string"}, "date": {"type": ["string", "null"]}, "window_start": {"type": ["string", "null"]}, "window_end": {"type": ["string", "null"]}}},
              "Shipment": {"type": "object", "required": ["tracking_number", "carrier", "status", "product", "scheduled_delivery", "events", "delivered_at", "fetched_at"], "properties": {"tracking_number": {"type": "string", "pattern": "^[0-9]{12}$"}, "carrier": {"type": "string", "enum": ["yamato"]}, "status": {"$ref": "#/components/schemas/Status"}, "product": {"type": ["string", "null"]}, "scheduled_delivery": {"$ref": "#/components/schemas/ScheduledDelivery"}, "events": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}}, "delivered_at": {"type": ["string", "null"]}, "fetched_at": {"type": "string"}}},
              "LookupError": {"type": "object", "required": ["input", "code", "detail"], "properties": {"input": {"type": "string"}, "code": {"type": "string"}, "detail": {"type": "string"}}},
              "ShipmentList": {"type": "object", "required": ["shipments", "errors"], "properties": {"shipments": {"type": "array", "items": {"$ref": "#/components/schemas/Shipment"}}, "errors": {"type": "array", "items": {"$ref": "#/components/schemas/LookupError"}}}}
            }
          }
        }
        """#
}
