// Minimal typing for the parts of autocannon the benches use (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    type Req = { method?: string; path?: string; headers?: Record<string, string>; body?: string };
    type Options = {
      url: string;
      connections?: number;
      duration?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      requests?: Array<{
        setupRequest?: (req: Req, context: Record<string, unknown>) => Req;
        onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
      }>;
    };
    type Result = {
      requests: { average: number; total: number };
      latency: { p50: number; p99: number };
      non2xx: number;
      errors: number;
    };
  }
  function autocannon(
    opts: autocannon.Options,
    cb: (err: Error | null, result: autocannon.Result) => void,
  ): unknown;
  export default autocannon;
}
