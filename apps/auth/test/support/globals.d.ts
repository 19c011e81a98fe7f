// Test-only typing convenience: tests read JSON bodies of many shapes and assert on them directly.
export {};

declare global {
  interface Response {
    // biome-ignore lint/suspicious/noExplicitAny: assertions check the shape at run time
    json(): Promise<any>;
  }
  type BodyInit = string | ArrayBuffer | Uint8Array | Blob | URLSearchParams | FormData | ReadableStream;
}
