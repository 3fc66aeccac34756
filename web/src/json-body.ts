// A response's body read once: its JSON, or null when it is empty or not JSON (an error page, a proxy's text).
export async function jsonOrNull(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
