import type { IncomingMessage, ServerResponse } from "node:http";
import { SERVER_ERROR, type PortalMethod } from "./methods.js";

/**
 * A fault to inject instead of (or, for `delay`, before) the normal answer.
 * `times` limits it to the next N matching calls; `method` to one method.
 */
export type Fault = (
  | { readonly kind: "delay"; readonly ms: number }
  | { readonly kind: "serverError"; readonly status?: number }
  | { readonly kind: "rateLimit"; readonly retryAfter?: string }
  /** The vendor's documented penalty: 429 without Retry-After to every matching call for `penaltyMs` (5 s) from the first, then normal answers. */
  | { readonly kind: "ratePenalty"; readonly penaltyMs?: number }
  | { readonly kind: "malformedJson" }
  /** The `error` body at `status` (default 200). */
  | { readonly kind: "errorBody"; readonly status?: number }
  /** `status` with an empty body. */
  | { readonly kind: "bareStatus"; readonly status: number }
  /** 200 with the usual JSON, less the id the method is asked for. */
  | { readonly kind: "missingId" }
  /** An HTML page at `status` (default 200); 502 is what a proxy in front of a down orchestrator sends. */
  | { readonly kind: "html"; readonly status?: number }
  /** 302 to a login page, as a portal behind single sign-on sends. */
  | { readonly kind: "redirectToLogin" }
  | { readonly kind: "reset" }
) & { readonly times?: number; readonly method?: PortalMethod };

export const sendJson = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void => {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
};

const sendHtml = (res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { "content-type": "text/html", "content-length": Buffer.byteLength(html), ...headers });
  res.end(html);
};

const NGINX_502 =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

/** What each method answers under the `missingId` fault: its usual shape, less the id a client looks for. */
const MISSING_ID_ANSWERS: Record<PortalMethod, unknown> = {
  "enterpriseProxy/getEnterpriseProxyProperty": {
    id: 1001,
    created: "2021-03-04T10:11:12.000Z",
    name: "vco.enterpriseProxy.displayName",
    value: "x",
  },
  "enterprise/getEnterprise": { logicalId: "00000000-0000-4000-8000-000000000000", name: "x" },
  "enterpriseProxy/getEnterpriseProxyEnterprises": [{}],
  "enterpriseProxy/getApiTokens": [{ id: 1, name: "x" }],
  "enterprise/getApiTokens": [{ id: 1, name: "x" }],
  "enterprise/refreshApiToken": {},
  "enterpriseProxy/createApiToken": { rows: 1 },
  "enterpriseProxy/downloadApiToken": {},
  "enterpriseProxy/revokeApiToken": {},
};

export const errorBody = (code: number, message: string) => ({ error: { code, message } });

/**
 * What applies a fault to one call: true when it answered (or dropped) the call, false when the normal answer
 * follows (after a delay, or once a penalty is over). `prefix` is the simulator's path prefix (the login redirect).
 */
export const createFaultApplier = (prefix: string) => {
  const penaltyEnds = new WeakMap<Fault, number>();

  return async (res: ServerResponse, req: IncomingMessage, fault: Fault, method: PortalMethod): Promise<boolean> => {
    switch (fault.kind) {
      case "delay":
        await new Promise((resolve) => setTimeout(resolve, fault.ms));
        return false; // then answer normally
      case "serverError":
        sendJson(res, fault.status ?? 500, errorBody(SERVER_ERROR, "An error occurred while processing your request"));
        return true;
      case "rateLimit":
        sendJson(
          res,
          429,
          errorBody(SERVER_ERROR, "rate limit exceeded"),
          fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter },
        );
        return true;
      case "malformedJson":
        sendJson(
          res,
          200,
          method.endsWith("Enterprises") || method.endsWith("getApiTokens")
            ? '[{"id": 1, "logicalId": "'
            : '{"id": 1, "enterpriseProxyId": ',
        );
        return true;
      case "ratePenalty": {
        const now = Date.now();
        const ends = penaltyEnds.get(fault) ?? now + (fault.penaltyMs ?? 5_000);
        penaltyEnds.set(fault, ends);
        if (now >= ends) return false; // the penalty is over
        sendJson(res, 429, errorBody(SERVER_ERROR, "rate limit exceeded"));
        return true;
      }
      case "errorBody":
        sendJson(res, fault.status ?? 200, errorBody(SERVER_ERROR, "An error occurred while processing your request"));
        return true;
      case "bareStatus":
        res.writeHead(fault.status, { "content-length": 0 });
        res.end();
        return true;
      case "missingId":
        sendJson(res, 200, MISSING_ID_ANSWERS[method]);
        return true;
      case "html":
        sendHtml(
          res,
          fault.status ?? 200,
          fault.status === 502 ? NGINX_502 : "<html><body><h1>Orchestrator</h1></body></html>",
        );
        return true;
      case "redirectToLogin":
        sendHtml(res, 302, '<html><body><a href="login.html">Log in</a></body></html>', {
          location: `${prefix}/login.html`,
        });
        return true;
      case "reset":
        req.socket.destroy();
        return true;
    }
  };
};
