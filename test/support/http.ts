/** A response read whole: status, headers, the text and its JSON (undefined when it is not JSON). */
export async function answerOf(res: Response): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
