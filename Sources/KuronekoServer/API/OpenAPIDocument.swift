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
            "description": "Yamato Transport (クロネコヤマト) parcel tracking as clean data. Shipments are the library's JSON (docs/SCHEMA.md) plus fetched_at. Every answer carries X-Request-ID; shipments carry Cache-Control, Age and a strong ETag (If-None-Match gives 304); bodies over 1 KB are gzipped for clients that accept it."
          },
          "paths": {
            "/v1/shipments/{number}": {
              "get": {
                "summary": "One shipment",
                "parameters": [
                  {
                    "name": "number",
                    "in": "path",
                    "required": true,
                    "description": "12 digits; hyphens, spaces and full-width digits are accepted",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "refresh",
                    "in": "query",
                    "required": false,
                    "description": "1 skips a fresh cached answer (rate limited per number)",
                    "schema": {
                      "type": "string",
                      "enum": [
                        "0",
                        "1"
                      ]
                    }
                  },
                  {
                    "name": "If-None-Match",
                    "in": "header",
                    "required": false,
                    "description": "An ETag from an earlier answer: 304 when the shipment has not changed",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The shipment; X-Cache says hit, miss or stale",
                    "headers": {
                      "X-Cache": {
                        "schema": {
                          "type": "string",
                          "enum": [
                            "hit",
                            "miss",
                            "stale"
                          ]
                        }
                      },
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      },
                      "ETag": {
                        "$ref": "#/components/headers/ETag"
                      },
                      "Cache-Control": {
                        "description": "max-age: seconds this copy stays fresh (0 for a stale copy)",
                        "schema": {
                          "type": "string",
                          "examples": [
                            "max-age=300"
                          ]
                        }
                      },
                      "Age": {
                        "description": "Seconds since Yamato was asked for this copy",
                        "schema": {
                          "type": "string",
                          "examples": [
                            "12"
                          ]
                        }
                      }
                    },
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Shipment"
                        },
                        "examples": {
                          "delivered": {
                            "$ref": "#/components/examples/DeliveredShipment"
                          }
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "502": {
                    "$ref": "#/components/responses/BadGateway"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "504": {
                    "$ref": "#/components/responses/GatewayTimeout"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  },
                  "304": {
                    "$ref": "#/components/responses/NotModified"
                  }
                },
                "operationId": "getShipment"
              }
            },
            "/v1/shipments": {
              "get": {
                "summary": "Up to 50 shipments",
                "parameters": [
                  {
                    "name": "numbers",
                    "in": "query",
                    "required": true,
                    "description": "Comma-separated tracking numbers, 1 to 50",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "refresh",
                    "in": "query",
                    "required": false,
                    "schema": {
                      "type": "string",
                      "enum": [
                        "0",
                        "1"
                      ]
                    }
                  },
                  {
                    "name": "If-None-Match",
                    "in": "header",
                    "required": false,
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "Shipments in request order; invalid numbers and upstream failures in errors",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ShipmentList"
                        }
                      }
                    },
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      },
                      "ETag": {
                        "$ref": "#/components/headers/ETag"
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "502": {
                    "$ref": "#/components/responses/BadGateway"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "504": {
                    "$ref": "#/components/responses/GatewayTimeout"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  },
                  "304": {
                    "$ref": "#/components/responses/NotModified"
                  }
                },
                "operationId": "listShipments"
              }
            },
            "/v1/shipments/query": {
              "post": {
                "summary": "Up to 100 shipments",
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "type": "object",
                        "required": [
                          "numbers"
                        ],
                        "properties": {
                          "numbers": {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": 100,
                            "items": {
                              "type": "string"
                            }
                          }
                        }
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "Shipments in request order; invalid numbers and upstream failures in errors",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/ShipmentList"
                        }
                      }
                    },
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "502": {
                    "$ref": "#/components/responses/BadGateway"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "504": {
                    "$ref": "#/components/responses/GatewayTimeout"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                },
                "operationId": "queryShipments"
              }
            },
            "/v1/watches": {
              "post": {
                "summary": "Watch a number",
                "description": "Adds a watch for the request's owner (idempotent: 200 when it exists). Never waits for Yamato: the first check is queued at refresh priority. With webhook_url, the webhook's secret is in the answer once, as webhook_secret.",
                "operationId": "addWatch",
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "type": "object",
                        "required": [
                          "number"
                        ],
                        "additionalProperties": false,
                        "properties": {
                          "number": {
                            "type": "string"
                          },
                          "label": {
                            "type": [
                              "string",
                              "null"
                            ],
                            "maxLength": 200
                          },
                          "webhook_url": {
                            "type": [
                              "string",
                              "null"
                            ],
                            "maxLength": 2048
                          }
                        }
                      },
                      "example": {
                        "number": "3277-5445-9830",
                        "label": "shoes"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "The watch existed already",
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    },
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/WatchAdded"
                        }
                      }
                    }
                  },
                  "201": {
                    "description": "The watch was added",
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    },
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/WatchAdded"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "409": {
                    "$ref": "#/components/responses/Conflict"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                }
              },
              "get": {
                "summary": "The owner's watches, paged",
                "operationId": "listWatches",
                "parameters": [
                  {
                    "name": "limit",
                    "in": "query",
                    "schema": {
                      "type": "integer",
                      "minimum": 1,
                      "maximum": 500,
                      "default": 100
                    }
                  },
                  {
                    "name": "cursor",
                    "in": "query",
                    "description": "next_cursor of the previous page",
                    "schema": {
                      "type": "string"
                    }
                  },
                  {
                    "name": "status",
                    "in": "query",
                    "schema": {
                      "type": "string",
                      "enum": [
                        "active",
                        "finished"
                      ]
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "A page of watches",
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    },
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/WatchList"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                }
              }
            },
            "/v1/watches/{number}": {
              "get": {
                "summary": "One watch",
                "operationId": "getWatch",
                "parameters": [
                  {
                    "name": "number",
                    "in": "path",
                    "required": true,
                    "description": "The tracking number, with or without hyphens",
                    "schema": {
                      "type": "string"
                    },
                    "example": "3277-5445-9830"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The watch",
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    },
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Watch"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                }
              },
              "delete": {
                "summary": "Stop watching, with its history, changes and pending deliveries",
                "operationId": "removeWatch",
                "parameters": [
                  {
                    "name": "number",
                    "in": "path",
                    "required": true,
                    "description": "The tracking number, with or without hyphens",
                    "schema": {
                      "type": "string"
                    },
                    "example": "3277-5445-9830"
                  }
                ],
                "responses": {
                  "204": {
                    "description": "Removed",
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                }
              }
            },
            "/v1/watches/{number}/changes": {
              "get": {
                "summary": "A watch's status changes, oldest first",
                "operationId": "listWatchChanges",
                "parameters": [
                  {
                    "name": "number",
                    "in": "path",
                    "required": true,
                    "description": "The tracking number, with or without hyphens",
                    "schema": {
                      "type": "string"
                    },
                    "example": "3277-5445-9830"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The changes",
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    },
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object",
                          "required": [
                            "changes"
                          ],
                          "properties": {
                            "changes": {
                              "type": "array",
                              "items": {
                                "$ref": "#/components/schemas/StatusChange"
                              }
                            }
                          }
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                }
              }
            },
            "/v1/watches/{number}/deliveries": {
              "get": {
                "summary": "Every webhook delivery attempt of a watch",
                "operationId": "listWatchDeliveries",
                "parameters": [
                  {
                    "name": "number",
                    "in": "path",
                    "required": true,
                    "description": "The tracking number, with or without hyphens",
                    "schema": {
                      "type": "string"
                    },
                    "example": "3277-5445-9830"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The attempts",
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    },
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object",
                          "required": [
                            "deliveries"
                          ],
                          "properties": {
                            "deliveries": {
                              "type": "array",
                              "items": {
                                "$ref": "#/components/schemas/DeliveryAttempt"
                              }
                            }
                          }
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                }
              }
            },
            "/v1/watches/{number}/refresh": {
              "post": {
                "summary": "Check a watch now, within the politeness budget",
                "description": "Answers the watch after a fresh check; when Yamato could not be asked or did not answer, the problem (502, 503 or 504) and the watch is unchanged.",
                "operationId": "refreshWatch",
                "parameters": [
                  {
                    "name": "number",
                    "in": "path",
                    "required": true,
                    "description": "The tracking number, with or without hyphens",
                    "schema": {
                      "type": "string"
                    },
                    "example": "3277-5445-9830"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The watch after the check",
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    },
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Watch"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "502": {
                    "$ref": "#/components/responses/BadGateway"
                  },
                  "504": {
                    "$ref": "#/components/responses/GatewayTimeout"
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                }
              }
            },
            "/v1/calendar.ics": {
              "get": {
                "summary": "Expected deliveries as an iCalendar feed",
                "description": "One event per active watch with a dated forecast (scheduled_delivery), or else a dated requested_delivery. With API keys, a calendar app subscribes with ?token= (the key's read-only calendar token).",
                "operationId": "deliveryCalendar",
                "parameters": [
                  {
                    "name": "token",
                    "in": "query",
                    "schema": {
                      "type": "string"
                    }
                  }
                ],
                "responses": {
                  "200": {
                    "description": "RFC 5545 calendar",
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    },
                    "content": {
                      "text/calendar; charset=utf-8": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "401": {
                    "$ref": "#/components/responses/Unauthorized"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                }
              }
            },
            "/v1/tneko": {
              "post": {
                "summary": "The original app's model, from Yamato's own form body",
                "description": "Takes the body Yamato's tracking form takes (number00=1, number01 to number10; other fields such as category are ignored) and answers the model the original app decoded: deriveryList (sic), each entry's deliveryID (the number as an integer) and statusList (status, date MM/DD, time HH:MM or null, shopName). A number Yamato does not know, an invalid one, or one whose lookup failed has an empty statusList; the last two are also listed in errors.",
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/x-www-form-urlencoded": {
                      "schema": {
                        "type": "object",
                        "properties": {
                          "number00": {"type": "string"},
                          "number01": {"type": "string"},
                          "number02": {"type": "string"},
                          "number03": {"type": "string"},
                          "number04": {"type": "string"},
                          "number05": {"type": "string"},
                          "number06": {"type": "string"},
                          "number07": {"type": "string"},
                          "number08": {"type": "string"},
                          "number09": {"type": "string"},
                          "number10": {"type": "string"}
                        }
                      },
                      "example": {"number00": "1", "number01": "3277-5445-9830"}
                    }
                  }
                },
                "responses": {
                  "200": {
                    "description": "One entry per number given, in field order",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/TnekoAnswer"
                        }
                      }
                    },
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "413": {
                    "$ref": "#/components/responses/ContentTooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                },
                "operationId": "trackAsOriginalApp"
              }
            },
            "/healthz": {
              "get": {
                "summary": "Liveness",
                "responses": {
                  "200": {
                    "description": "The process is up",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object",
                          "required": [
                            "status"
                          ],
                          "properties": {
                            "status": {
                              "type": "string",
                              "enum": [
                                "ok"
                              ]
                            }
                          }
                        }
                      }
                    },
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    }
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                },
                "operationId": "getHealth"
              }
            },
            "/readyz": {
              "get": {
                "summary": "Readiness",
                "responses": {
                  "200": {
                    "description": "Ready to ask Yamato: the circuit is closed, or half-open (the next POST is a probe); with a watch list, its database answered",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object",
                          "required": [
                            "status",
                            "circuit"
                          ],
                          "properties": {
                            "status": {
                              "type": "string",
                              "enum": [
                                "ready"
                              ]
                            },
                            "circuit": {
                              "type": "string",
                              "enum": [
                                "closed",
                                "half_open"
                              ]
                            },
                            "database": {
                              "type": "string",
                              "enum": [
                                "reachable"
                              ]
                            }
                          }
                        }
                      }
                    },
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    }
                  },
                  "503": {
                    "$ref": "#/components/responses/Unavailable"
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                },
                "operationId": "getReadiness"
              }
            },
            "/metrics": {
              "get": {
                "summary": "Prometheus metrics",
                "responses": {
                  "200": {
                    "description": "Text exposition format 0.0.4",
                    "content": {
                      "text/plain": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    },
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    }
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                },
                "operationId": "getMetrics"
              }
            },
            "/openapi.json": {
              "get": {
                "summary": "This document",
                "responses": {
                  "200": {
                    "description": "OpenAPI 3.1",
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object"
                        }
                      }
                    },
                    "headers": {
                      "X-Request-ID": {
                        "$ref": "#/components/headers/X-Request-ID"
                      }
                    }
                  },
                  "404": {
                    "$ref": "#/components/responses/NotFound"
                  },
                  "405": {
                    "$ref": "#/components/responses/MethodNotAllowed"
                  },
                  "414": {
                    "$ref": "#/components/responses/URITooLong"
                  },
                  "431": {
                    "$ref": "#/components/responses/HeadersTooLarge"
                  }
                },
                "operationId": "getOpenAPIDocument"
              }
            }
          },
          "components": {
            "responses": {
              "Problem": {
                "description": "RFC 9457 problem document",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/problem+json": {
                    "schema": {
                      "$ref": "#/components/schemas/Problem"
                    }
                  }
                }
              },
              "Unauthorized": {
                "description": "No API key, or not a valid one, where keys are in force",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  },
                  "WWW-Authenticate": {
                    "schema": {
                      "type": "string"
                    }
                  }
                },
                "content": {
                  "application/problem+json": {
                    "schema": {
                      "$ref": "#/components/schemas/Problem"
                    }
                  }
                }
              },
              "Conflict": {
                "description": "The owner has the most watches allowed (10,000)",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/problem+json": {
                    "schema": {
                      "$ref": "#/components/schemas/Problem"
                    }
                  }
                }
              },
              "UnsupportedMediaType": {
                "description": "The body is not of the type the operation takes; the detail names the right one",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/problem+json": {
                    "schema": {
                      "$ref": "#/components/schemas/Problem"
                    }
                  }
                }
              },
              "BadRequest": {
                "description": "A bad number, body or parameter, or refused framing; the detail names it",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/problem+json": {
                    "schema": {
                      "$ref": "#/components/schemas/Problem"
                    },
                    "example": {
                      "type": "https://kuroneko.invalid/problems/invalid-number",
                      "title": "Invalid tracking number",
                      "status": 400,
                      "detail": "\"1234-5678-9015\" check digit is 5, expected 3"
                    }
                  }
                }
              },
              "NotFound": {
                "description": "No such resource",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/problem+json": {
                    "schema": {
                      "$ref": "#/components/schemas/Problem"
                    }
                  }
                }
              },
              "MethodNotAllowed": {
                "description": "The path exists for other methods, listed in Allow",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/problem+json": {
                    "schema": {
                      "$ref": "#/components/schemas/Problem"
                    }
                  }
                }
              },
              "ContentTooLarge": {
                "description": "The body (or its declared length) is over 64 KiB",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/problem+json": {
                    "schema": {
                      "$ref": "#/components/schemas/Problem"
                    }
                  }
                }
              },
              "BadGateway": {
                "description": "Yamato answered something that could not be read",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/problem+json": {
                    "schema": {
                      "$ref": "#/components/schemas/Problem"
                    }
                  }
                }
              },
              "GatewayTimeout": {
                "description": "Yamato did not answer before the lookup's deadline",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/problem+json": {
                    "schema": {
                      "$ref": "#/components/schemas/Problem"
                    }
                  }
                }
              },
              "Unavailable": {
                "description": "Yamato is not asked now: the circuit is open after repeated failures, the queue ahead is longer than the lookup's deadline, or the server is stopping; Retry-After says when to ask again",
                "headers": {
                  "Retry-After": {
                    "schema": {
                      "type": "string"
                    }
                  },
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/problem+json": {
                    "schema": {
                      "$ref": "#/components/schemas/Problem"
                    }
                  }
                }
              },
              "NotModified": {
                "description": "Unchanged since the ETag given in If-None-Match; no body",
                "headers": {
                  "ETag": {
                    "$ref": "#/components/headers/ETag"
                  },
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                }
              },
              "URITooLong": {
                "description": "The request target is too long (answered by libmicrohttpd)"
              },
              "HeadersTooLarge": {
                "description": "The request's headers are too large (answered by libmicrohttpd)"
              }
            },
            "schemas": {
              "Problem": {
                "type": "object",
                "required": [
                  "type",
                  "title",
                  "status",
                  "detail"
                ],
                "properties": {
                  "type": {
                    "type": "string"
                  },
                  "title": {
                    "type": "string"
                  },
                  "status": {
                    "type": "integer"
                  },
                  "detail": {
                    "type": "string"
                  },
                  "reason": {
                    "type": "string",
                    "description": "For a lookup Yamato could not answer, a stable code: timeout, connection, http_status, page, transport, upstream_body_too_large, overloaded, circuit_open, deadline_exceeded or shutting_down"
                  }
                }
              },
              "StatusCode": {
                "type": "string",
                "enum": [
                  "info_received",
                  "in_transit",
                  "out_for_delivery",
                  "available_for_pickup",
                  "attempt_failed",
                  "delivered",
                  "exception",
                  "returned",
                  "not_found",
                  "invalid_number",
                  "unknown"
                ]
              },
              "Status": {
                "type": "object",
                "required": [
                  "code",
                  "label",
                  "label_en",
                  "summary",
                  "note",
                  "terminal"
                ],
                "properties": {
                  "code": {
                    "$ref": "#/components/schemas/StatusCode"
                  },
                  "label": {
                    "type": "string"
                  },
                  "label_en": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "summary": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "note": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "terminal": {
                    "type": "boolean"
                  }
                }
              },
              "Event": {
                "type": "object",
                "required": [
                  "label",
                  "label_en",
                  "code",
                  "at",
                  "date_text",
                  "place"
                ],
                "properties": {
                  "label": {
                    "type": "string"
                  },
                  "label_en": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "code": {
                    "$ref": "#/components/schemas/StatusCode"
                  },
                  "at": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "ISO 8601 in Japan time: a date-time, or a date when the row has no time",
                    "anyOf": [
                      {
                        "format": "date-time"
                      },
                      {
                        "format": "date"
                      }
                    ]
                  },
                  "date_text": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "place": {
                    "type": [
                      "string",
                      "null"
                    ]
                  }
                }
              },
              "ScheduledDelivery": {
                "type": [
                  "object",
                  "null"
                ],
                "required": [
                  "raw",
                  "date",
                  "window_start",
                  "window_end"
                ],
                "properties": {
                  "raw": {
                    "type": "string"
                  },
                  "date": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "format": "date"
                  },
                  "window_start": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "window_end": {
                    "type": [
                      "string",
                      "null"
                    ]
                  }
                }
              },
              "Shipment": {
                "type": "object",
                "required": [
                  "tracking_number",
                  "carrier",
                  "status",
                  "product",
                  "scheduled_delivery",
                  "requested_delivery",
                  "events",
                  "delivered_at",
                  "fetched_at"
                ],
                "properties": {
                  "tracking_number": {
                    "type": "string",
                    "pattern": "^[0-9]{12}$"
                  },
                  "carrier": {
                    "type": "string",
                    "enum": [
                      "yamato"
                    ]
                  },
                  "status": {
                    "$ref": "#/components/schemas/Status"
                  },
                  "product": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "scheduled_delivery": {
                    "$ref": "#/components/schemas/ScheduledDelivery"
                  },
                  "requested_delivery": {
                    "description": "お届け希望日時 or お届け希望時間: the window the recipient asked for, same shape as scheduled_delivery (10:00まで gives window_end 10:00 and window_start null); null when the page shows none",
                    "$ref": "#/components/schemas/ScheduledDelivery"
                  },
                  "events": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Event"
                    }
                  },
                  "delivered_at": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "format": "date-time"
                  },
                  "fetched_at": {
                    "type": "string",
                    "format": "date-time"
                  }
                }
              },
              "Watch": {
                "type": "object",
                "required": [
                  "number",
                  "label",
                  "created_at",
                  "active",
                  "checked_at",
                  "shipment",
                  "webhook_url",
                  "webhook_ended"
                ],
                "properties": {
                  "number": {
                    "type": "string"
                  },
                  "label": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "created_at": {
                    "type": "string",
                    "format": "date-time"
                  },
                  "active": {
                    "type": "boolean",
                    "description": "Still followed: not delivered, returned or invalid, and not expired"
                  },
                  "checked_at": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "format": "date-time"
                  },
                  "shipment": {
                    "oneOf": [
                      {
                        "$ref": "#/components/schemas/Shipment"
                      },
                      {
                        "type": "null"
                      }
                    ]
                  },
                  "webhook_url": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "webhook_ended": {
                    "description": "When and why the receiver ended the webhook (it answered 410 Gone); nothing is posted to it after that",
                    "oneOf": [
                      {
                        "type": "object",
                        "required": [
                          "at",
                          "reason"
                        ],
                        "properties": {
                          "at": {
                            "type": "string",
                            "format": "date-time"
                          },
                          "reason": {
                            "type": "string"
                          }
                        }
                      },
                      {
                        "type": "null"
                      }
                    ]
                  }
                }
              },
              "WatchAdded": {
                "allOf": [
                  {
                    "$ref": "#/components/schemas/Watch"
                  },
                  {
                    "type": "object",
                    "properties": {
                      "webhook_secret": {
                        "type": "string",
                        "description": "Shown once, when the webhook is created"
                      }
                    }
                  }
                ]
              },
              "WatchList": {
                "type": "object",
                "required": [
                  "watches",
                  "next_cursor"
                ],
                "properties": {
                  "watches": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Watch"
                    }
                  },
                  "next_cursor": {
                    "type": [
                      "string",
                      "null"
                    ]
                  }
                }
              },
              "StatusChange": {
                "type": "object",
                "required": [
                  "id",
                  "created_at",
                  "previous",
                  "shipment"
                ],
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "created_at": {
                    "type": "string",
                    "format": "date-time"
                  },
                  "previous": {
                    "type": [
                      "object",
                      "null"
                    ]
                  },
                  "shipment": {
                    "type": [
                      "object",
                      "null"
                    ]
                  }
                }
              },
              "DeliveryAttempt": {
                "type": "object",
                "required": [
                  "change_id",
                  "state",
                  "at",
                  "status",
                  "error",
                  "duration_ms"
                ],
                "properties": {
                  "change_id": {
                    "type": "string"
                  },
                  "state": {
                    "type": "string",
                    "enum": [
                      "pending",
                      "delivered",
                      "failed"
                    ]
                  },
                  "at": {
                    "type": "string",
                    "format": "date-time"
                  },
                  "status": {
                    "type": [
                      "integer",
                      "null"
                    ]
                  },
                  "error": {
                    "type": [
                      "string",
                      "null"
                    ]
                  },
                  "duration_ms": {
                    "type": "number"
                  }
                }
              },
              "TnekoStatus": {
                "type": "object",
                "required": ["status", "date", "time", "shopName"],
                "properties": {
                  "status": {"type": "string", "description": "The Japanese label as Yamato wrote it"},
                  "date": {"type": "string", "pattern": "^[0-9]{2}/[0-9]{2}$"},
                  "time": {"type": ["string", "null"], "pattern": "^[0-9]{2}:[0-9]{2}$"},
                  "shopName": {"type": "string"}
                }
              },
              "TnekoDelivery": {
                "type": "object",
                "required": ["deliveryID", "statusList"],
                "properties": {
                  "deliveryID": {"type": "integer", "description": "The tracking number as an integer"},
                  "statusList": {"type": "array", "items": {"$ref": "#/components/schemas/TnekoStatus"}}
                }
              },
              "TnekoAnswer": {
                "type": "object",
                "required": ["deriveryList", "errors"],
                "properties": {
                  "deriveryList": {"type": "array", "items": {"$ref": "#/components/schemas/TnekoDelivery"}},
                  "errors": {"type": "array", "items": {"$ref": "#/components/schemas/LookupError"}}
                }
              },
              "LookupError": {
                "type": "object",
                "required": [
                  "input",
                  "code",
                  "detail"
                ],
                "properties": {
                  "input": {
                    "type": "string"
                  },
                  "code": {
                    "type": "string"
                  },
                  "detail": {
                    "type": "string"
                  }
                }
              },
              "ShipmentList": {
                "type": "object",
                "required": [
                  "shipments",
                  "errors"
                ],
                "properties": {
                  "shipments": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Shipment"
                    }
                  },
                  "errors": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/LookupError"
                    }
                  }
                }
              }
            },
            "headers": {
              "X-Request-ID": {
                "description": "The request's id: the client's own when sane (1 to 64 visible ASCII characters), else a new one",
                "schema": {
                  "type": "string",
                  "maxLength": 64
                }
              },
              "ETag": {
                "description": "A strong entity tag; ends in -gzip\" when the body is gzipped",
                "schema": {
                  "type": "string"
                }
              }
            },
            "examples": {
              "DeliveredShipment": {
                "summary": "A delivered parcel",
                "value": {
                  "carrier": "yamato",
                  "delivered_at": "2026-10-28T11:30:00+09:00",
                  "events": [
                    {
                      "at": "2026-10-27T11:27:00+09:00",
                      "code": "info_received",
                      "date_text": "10月27日 11:27",
                      "label": "荷物受付",
                      "label_en": "Shipment Accepted",
                      "place": "ＺＯＺＯ支店"
                    },
                    {
                      "at": "2026-10-28T11:30:00+09:00",
                      "code": "delivered",
                      "date_text": "10月28日 11:30",
                      "label": "配達完了",
                      "label_en": "Delivered",
                      "place": "ＥＣ笹塚センター"
                    }
                  ],
                  "fetched_at": "2026-10-28T12:00:00+09:00",
                  "product": "宅急便",
                  "scheduled_delivery": null,
                  "requested_delivery": null,
                  "status": {
                    "code": "delivered",
                    "label": "配達完了",
                    "label_en": "Delivered",
                    "note": null,
                    "summary": "このお品物はお届けが済んでおります。",
                    "terminal": true
                  },
                  "tracking_number": "327754459830"
                }
              }
            }
          },
          "servers": [
            {
              "url": "http://127.0.0.1:8080",
              "description": "kuroneko serve with its defaults"
            }
          ]
        }
        """#
}
