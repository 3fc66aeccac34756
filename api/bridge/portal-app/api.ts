// The page's calls to its bridge API (same origin): JSON in and out, and every refusal as an error whose
// message is the API's sentence.

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** A call to the bridge API; `accessToken` is a transfer's capability, `extraHeaders` e.g. a signed read. */
export async function api<T>(
  path: string,
  init: RequestInit & { accessToken?: string; extraHeaders?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...init.extraHeaders };
  if (init.body) headers["content-type"] = "application/json";
  if (init.accessToken) headers["x-transfer-token"] = init.accessToken;
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers });
  } catch {
    throw new ApiError("The bridge cannot be reached: check your connection and try again.", "NETWORK");
  }
  const body = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!res.ok || body.error)
    throw new ApiError(
      body.error?.message ?? `The bridge answered ${res.status}.`,
      body.error?.code ?? String(res.status),
    );
  return body as T;
}
