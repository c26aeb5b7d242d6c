import type { Context } from 'hono';
import type { z } from 'zod';

/** The JSON body parsed by `schema`, or one line naming the first bad key. */
export async function body<T>(
  c: Context,
  schema: z.ZodType<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    return { ok: false, error: 'the request body is not JSON' };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const key = issue?.path.join('.') ?? '';
  return { ok: false, error: `${key === '' ? 'request body' : `"${key}"`}: ${issue?.message ?? 'invalid'}` };
}
