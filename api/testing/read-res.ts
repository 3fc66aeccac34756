// A fetch response as the API tests read it.

export interface Res {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** Status, headers, the body parsed as JSON (undefined when it is not JSON) and its text. */
export async function readRes(r: Response): Promise<Res> {
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, headers: r.headers, body: parsed, text };
}
