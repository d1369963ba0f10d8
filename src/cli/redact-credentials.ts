import type { CliIo } from './command.js';

/**
 * `scheme://user:password@` anywhere in printed text: the password part. A
 * URL reaches output only by mistake (a ledger URL given where a folder was
 * expected, an endpoint echoed in a refusal), so every string sealkit
 * prints goes through this, as the last guard behind the rule that no
 * password is ever printed (docs/cli.md#output).
 */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:'"`]*):[^\s/?#@'"`]*@/gi;

export function redactUrlPasswords(text: string): string {
  return text.includes('://') ? text.replace(URL_PASSWORD, '$1:***@') : text;
}

/** A stream whose string writes have URL passwords masked; bytes (byte-exact outputs) pass as they are. */
function redacting(stream: NodeJS.WritableStream): NodeJS.WritableStream {
  return new Proxy(stream, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'write' && typeof value === 'function') {
        return (chunk: unknown, ...rest: unknown[]) =>
          Reflect.apply(value, target, [
            typeof chunk === 'string' ? redactUrlPasswords(chunk) : chunk,
            ...rest,
          ]);
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export function redactingIo(io: CliIo): CliIo {
  return { stdin: io.stdin, stdout: redacting(io.stdout), stderr: redacting(io.stderr) };
}
