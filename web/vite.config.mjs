// The trading app's build (web/build.ts runs `vite build` with this file): plain TypeScript, no
// framework; sdk/ files are bundled from the repository (`../sdk`). `npx vite --config web/vite.config.mjs`
// serves it for development against `npm start`'s default ports.
import { defineConfig } from "vite";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  base: "/",
  logLevel: "warn",
  build: {
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 2000,
    emptyOutDir: true,
    // two pages: the DEX trading app and the exchange app (exchange.html, served at /exchange)
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL("index.html", import.meta.url)),
        exchange: fileURLToPath(new URL("exchange.html", import.meta.url)),
      },
    },
  },
  server: {
    port: 3004,
    fs: { allow: [fileURLToPath(new URL("..", import.meta.url))] },
    proxy: {
      "/v1": "http://127.0.0.1:3001",
      "/ws": { target: "ws://127.0.0.1:8080", ws: true },
      "/rpc": { target: "http://127.0.0.1:8545", rewrite: () => "/" },
      "/indexer": { target: "http://127.0.0.1:42069", rewrite: (p) => p.replace(/^\/indexer/, "") },
      "/exchange-api": {
        target: "http://127.0.0.1:3000",
        changeOrigin: true,
        rewrite: (p) => p.replace(/^\/exchange-api/, ""),
      },
      "/identity": {
        target: "http://127.0.0.1:3003",
        changeOrigin: true,
        rewrite: (p) => p.replace(/^\/identity/, ""),
      },
    },
  },
});
