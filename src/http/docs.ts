/**
 * API documentation: the prose of the OpenAPI document (info.description, tags, the auth
 * scheme), the shared error responses with their examples, and the offline reference page at /docs.
 * The page is one self-contained HTML document (inline CSS + vanilla JS, no CDN, no fonts) that
 * fetches /openapi.json and renders it with DOM methods only (textContent, never innerHTML).
 */
import type { z } from "@hono/zod-openapi";
import * as S from "../contract";

export const API_DESCRIPTION = `Lifecycle-aware long-term memory for long-horizon LLM agents: REST under \`/v1\`, JSON bodies, times as ISO 8601 dates or date-times; MCP at \`/mcp\`; a CLI and a typed client in the \`paperguru\` package.

## Quick start

Start a local server (\`npm install && npm start\` in the repository prints its URL and admin key), then:

\`\`\`
export U=http://127.0.0.1:8787 PAPERGURU_URL=http://127.0.0.1:8787   # the line npm start printed (PORT=... changes it)
ADMIN=$(grep '^ADMIN_KEY=' .dev.vars | cut -d= -f2-)
KEY=$(curl -s -X POST $U/v1/archives -H "authorization: Bearer $ADMIN" -H 'content-type: application/json' \\
  -d '{"id":"mine","name":"My memory"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).key.secret')
curl -s -X POST $U/v1/archives/mine/ingest -H "authorization: Bearer $KEY" -H 'content-type: application/json' \\
  -d '{"artifacts":[{"id":"note:damping","kind":"note","title":"Damping","content":"We use a PageRank damping of 0.85."}]}'
curl -s -X POST $U/v1/archives/mine/context -H "authorization: Bearer $KEY" -H 'content-type: application/json' \\
  -d '{"query":"Which damping do we use?"}'
curl -s "$U/v1/archives/mine/chunks?limit=10" -H "authorization: Bearer $KEY"
\`\`\`

The context answer holds evidence cards: a claim, its logic sketch and anchors, exact \`[start, end)\` spans of one version's content; \`POST …/verify\` re-checks them and \`GET …/chunks/{id}/content?version=&start=&end=\` reads them.

## Conventions

- Output is snake_case; times are ISO 8601 (UTC); weights and scores carry 4 significant digits.
- A field a request's body or query does not take, at any depth, is a 400 naming it and the closest known name (\`asOf\` → \`as_of\`); nothing is dropped without a word. Kernel parameters also take their camelCase names of before.
- Listings page with \`limit\` and an opaque \`cursor\` (\`next_cursor\` of the previous page; null on the last); the ingest log pages with \`before\`.
- \`as_of\` answers as the archive was at that time: versions not yet valid, superseded or deprecated then are invisible.
- Writes are idempotent: the same artifact again is \`unchanged\`; a retried webhook delivery is a duplicate.

## MCP

\`/mcp\` speaks MCP over streamable HTTP, statelessly: POST JSON-RPC with \`Authorization: Bearer <key>\` and \`Accept: application/json, text/event-stream\` (without that Accept header the transport answers 406). Tools: context, route (with \`code_pairs: true\`: xKG technique → code pairs), expand, verify, read, list, history, neighbours, resolve, export, remember, deprecate, forget, entity, session, project (the pre-turn brief with \`request\`, else the whole project state), annotate, research and curate (research memory: \`op\` names the capability, \`args\` is the request of its REST route in this page; research reads, curate writes); resources: each archive the key reads and its chunks (\`paperguru://<archive>/chunks/<id>\`); prompts: brief, changes. A client configuration:

\`\`\`
{"mcpServers": {"paperguru": {"type": "http", "url": "http://127.0.0.1:8787/mcp",
  "headers": {"Authorization": "Bearer pgk_..."}}}}
\`\`\`

## CLI and client

\`npm pack\` in the repository makes a tarball; \`npm install ./paperguru-0.1.0.tgz\` installs the \`paperguru\` command and the typed client (\`import { PaperGuruClient } from "paperguru"\`). The command reads PAPERGURU_URL, PAPERGURU_KEY (or PAPERGURU_ADMIN_KEY) and PAPERGURU_ARCHIVE:

\`\`\`
export PAPERGURU_URL=$U PAPERGURU_KEY=$KEY PAPERGURU_ARCHIVE=mine
paperguru import papers/            # BibTeX, Markdown, full text, JSON/JSONL, xKG; resumable
paperguru note "We moved the damping to 0.5."
paperguru context "Which damping do we use?"
paperguru chunks --kind paper       # then: show, history, revise, deprecate, forget
paperguru subscriptions add agent --to https://agent.example.com/hooks
\`\`\`

\`paperguru --help\` lists every command.

## Authentication

- **Archive keys**: \`Authorization: Bearer pgk_...\`. Issued per archive with scopes \`read\` and/or \`write\`; the secret is shown once and stored hashed. A key never reaches another archive.
- **Admin key**: the deployment's \`ADMIN_KEY\`, sent the same way. It passes every check (any archive, any scope) and is the only key for routes marked \`admin\`.
- **Signed webhooks**: \`POST /v1/archives/{archive}/webhooks/{name}\` takes no bearer key; the delivery is authenticated by an HMAC-SHA256 of the raw body (see that route's header parameters).
- **Outbound events** are signed the same way (\`X-PaperGuru-Timestamp\`, \`X-PaperGuru-Signature: sha256=<hex>\` over \`<timestamp>.<body>\`).
- \`/\`, \`/healthz\`, \`/openapi.json\` and \`/docs\` need no key.

Each operation's security requirement names the scope it needs: \`bearer: [read]\`, \`bearer: [write]\` or \`bearer: [admin]\`; \`bearer: []\` (only \`GET /v1/whoami\`) takes any valid key. \`GET /v1/whoami\` answers which archives a key reaches and with which scopes.

## Errors

Every failure is JSON of one shape, \`{"error": {"type", "message", "field", "hint"}}\` (schema \`Error\`): \`type\` is the failure kind, \`message\` says what went wrong, \`field\` (when known) names the JSON path, parameter or header at fault (e.g. \`artifacts.3.valid_from\`, \`Authorization\`), \`hint\` (when known) says what to do. A failed request never stores part of itself.

- \`validation\` (400): the body, a parameter or a header does not match the schema, or is inconsistent.
- \`unauthorized\` (401): missing, invalid or revoked key; bad webhook signature or stale timestamp.
- \`forbidden\` (403): the key lacks the scope, belongs to another archive, or the route needs the admin key.
- \`not_found\` (404): no such archive, chunk, entity, key, webhook, delivery, source or route.
- \`method_not_allowed\` (405): the path is a route's, with other methods; the \`Allow\` header lists them (a GET on \`POST …/context\`).
- \`conflict\` (409): conflicts with stored state (versions, ids, a delivery already queued); nothing was stored.
- \`too_large\` (413): over a named limit (body over 32 MiB, more than 200 artifacts, content over 2 MiB, more than 2,000 import records).
- \`unprocessable\` (422): well-formed input that cannot be used as sent (a PDF without a text layer: run OCR first).
- \`unavailable\` (503): a dependency (the queue) refused; retry.
- \`internal\` (500): an unexpected error; nothing partial was stored.

Human-readable reference: [/docs](/docs).`;

export const TAGS = [
  { name: "service", description: "Health, the OpenAPI document and this reference" },
  { name: "archives", description: "Archives and their keys (admin)" },
  { name: "ingest", description: "Artifacts in batches and files" },
  { name: "lifecycle", description: "Versions, deprecation, hard deletes and history" },
  { name: "entities", description: "Entity aliases, renames and merges with validity times" },
  { name: "browse", description: "Chunks and entities page by page, one chunk or entity, exact content" },
  { name: "query", description: "Routing, evidence cards, context assembly, verification, sessions" },
  {
    name: "discovery",
    description: "Collection statistics; ranking modes, MMR and views are route and context's ranking",
  },
  { name: "webhooks", description: "Signed webhook endpoints, deliveries and dead letters" },
  { name: "events", description: "Outbound events: subscribers, signed deliveries, retries and redelivery" },
  { name: "sources", description: "Scheduled sources and the ingest log" },
  {
    name: "research",
    description:
      "Literature-review memory (SGMC): outline tree, evidence hubs, section drafts, convergence, assembly, feedback",
  },
  { name: "papers", description: "Paper analysis: locate a topic in one paper, coverage of its sections and elements" },
  { name: "paperbench", description: "PaperBench rubric trees scored from leaf grades or a leaf judge" },
  {
    name: "projectguard",
    description: "ProjectGuard: record specs, stored runs and their metrics, the exposure audit, the rubric judge",
  },
  { name: "operations", description: "Capital-chunk snapshots and eviction (admin)" },
  {
    name: "review",
    description: "Human verification of nodes and edges (statuses with history) and retrieval metrics with stored runs",
  },
];

export const BEARER_SCHEME = {
  type: "http" as const,
  scheme: "bearer",
  description:
    "An archive key (`pgk_...`, scopes read/write, one archive) or the admin key. The roles listed in an operation's requirement name the scope it needs; the admin key satisfies all of them.",
};

/** Security requirements: the role names the scope (OpenAPI 3.1 allows roles for http schemes). */
export const AUTH = {
  read: [{ bearer: ["read"] }],
  write: [{ bearer: ["write"] }],
  admin: [{ bearer: ["admin"] }],
  /** Any valid key, whatever its archive and scopes (GET /v1/whoami). */
  key: [{ bearer: [] as string[] }],
  none: [] as Array<Record<string, string[]>>,
};

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 503;

const ERRORS: Record<ErrorStatus, { description: string; example: z.infer<typeof S.ErrorSchema> }> = {
  400: {
    description: "Invalid input (`validation`): the field names the JSON path or parameter",
    example: S.VALIDATION_ERROR_EXAMPLE,
  },
  401: {
    description: "Missing, invalid or revoked key (`unauthorized`)",
    example: {
      error: {
        type: "unauthorized",
        message: "missing API key",
        field: "Authorization",
        hint: "send `Authorization: Bearer <key>`",
      },
    },
  },
  403: {
    description: "The key lacks the scope, is for another archive, or the route needs the admin key (`forbidden`)",
    example: {
      error: {
        type: "forbidden",
        message: "this key lacks the 'write' scope",
        field: "Authorization",
        hint: 'issue a key with scopes ["write"]',
      },
    },
  },
  404: {
    description: "No such archive or resource (`not_found`)",
    example: { error: { type: "not_found", message: "archive rag-memory does not exist", field: "archive" } },
  },
  409: {
    description: "Conflicts with stored state; nothing was stored (`conflict`)",
    example: {
      error: {
        type: "conflict",
        message: "chunk decision:cache is already deprecated",
        field: "id",
        hint: "see its history",
      },
    },
  },
  413: {
    description: "Over a named limit (`too_large`)",
    example: {
      error: {
        type: "too_large",
        message: "request body exceeds 33554432 bytes",
        field: "body",
        hint: "split the batch",
      },
    },
  },
  422: {
    description: "Well-formed input that cannot be processed as sent (`unprocessable`)",
    example: {
      error: {
        type: "unprocessable",
        message: "no text layer: none of the 3 pages has any text (a scanned or image-only PDF)",
        field: "body",
        hint: "run OCR first (for example `ocrmypdf in.pdf out.pdf`), then import the OCRed PDF",
      },
    },
  },
  503: {
    description: "A dependency refused; retry (`unavailable`)",
    example: {
      error: {
        type: "unavailable",
        message: "could not enqueue the delivery: queue overloaded",
        field: "queue",
        hint: "retry the delivery",
      },
    },
  },
};

export type ErrorResponse = {
  description: string;
  content: { "application/json": { schema: typeof S.ErrorSchema; example: z.infer<typeof S.ErrorSchema> } };
};

/** One documented error response (Error schema + an example of that status), optionally re-described. */
export function errorResponse(status: ErrorStatus, description?: string): ErrorResponse {
  const e = ERRORS[status];
  return {
    description: description ?? e.description,
    content: { "application/json": { schema: S.ErrorSchema, example: e.example } },
  };
}

/** The errors of the seed systems' model roles: no model configured (409), the model failed (503). */
export function modelErrors() {
  return {
    409: errorResponse(409, "No model configured (`conflict`): set DISTILLER or EXTRACTOR and LLM_* (docs/models.md)"),
    503: errorResponse(503, "The model failed, or answered unusably twice (`unavailable`); nothing was written"),
  };
}

/** The error responses a route can return: `...errors(400, 401, 403, 404)`. */
export function errors<const C extends ErrorStatus>(...statuses: C[]): Record<C, ErrorResponse> {
  const out = {} as Record<C, ErrorResponse>;
  for (const s of statuses) out[s] = errorResponse(s);
  return out;
}

// ------------------------------------------------------------------ the /docs page

const CSS = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--mut:#5b636d;--line:#d8dde3;--code:#f3f5f7;--acc:#0b5cad}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#14171a;--mut:#9aa3ad;--line:#2f353b;--code:#1d2125;--acc:#6fb0ff}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--acc)}header,main{max-width:72rem;margin:0 auto;padding:0 1rem}header{padding-top:1rem}
nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{background:var(--code);padding:0 .25em;border-radius:3px}
pre{background:var(--code);padding:.6rem .8rem;border-radius:6px;overflow:auto;max-height:28rem;margin:.3rem 0}
details.op{border:1px solid var(--line);border-radius:6px;margin:.4rem 0}
details.op>summary{cursor:pointer;padding:.45rem .6rem;display:flex;gap:.6rem;align-items:baseline;flex-wrap:wrap}
details.op>div{padding:0 .8rem .6rem;border-top:1px solid var(--line)}
details details>summary{cursor:pointer;color:var(--mut)}
.m{display:inline-block;min-width:4.2rem;text-align:center;font-weight:700;font-size:12px;padding:.1rem .3rem;border-radius:4px;color:#fff;background:#57606a}
.get{background:#1f7a3d}.post{background:#0b5cad}.put{background:#8a5a00}.patch{background:#6f42c1}.delete{background:#b42318}
.sum{color:var(--mut)}.lock{font-size:12px;color:var(--mut)}
table{border-collapse:collapse;width:100%;margin:.3rem 0}th,td{border-bottom:1px solid var(--line);text-align:left;padding:.25rem .4rem;vertical-align:top}
input[type=search]{width:100%;max-width:28rem;padding:.4rem;font:inherit;margin:.5rem 0}
h2{margin-top:1.6rem;border-bottom:1px solid var(--line)}h3{margin:.7rem 0 .2rem;font-size:1rem}
`;

const JS = `
"use strict";
const $=(t,a,...k)=>{const e=document.createElement(t);for(const[n,v]of Object.entries(a||{}))if(v!=null)e.setAttribute(n,String(v));for(const c of k)if(c!=null)e.append(c);return e;};
const app=document.getElementById("app");
const status=(m)=>{app.replaceChildren($("p",{role:"status"},m));};
let doc;
const refName=(r)=>decodeURIComponent(String(r).split("/").pop());
const deref=(s)=>s&&s.$ref?(doc.components&&doc.components.schemas||{})[refName(s.$ref)]||{}:s||{};
const slug=(s)=>String(s).toLowerCase().replace(/[^a-z0-9]+/g,"-");
const pretty=(v)=>$("pre",{},JSON.stringify(v,null,2));
function exampleOf(media){if(!media)return undefined;if(media.example!==undefined)return media.example;
 if(media.examples){const f=Object.values(media.examples)[0];if(f&&f.value!==undefined)return f.value;}
 const s=deref(media.schema);if(s.example!==undefined)return s.example;if(Array.isArray(s.examples)&&s.examples.length)return s.examples[0];return undefined;}
function typeOf(s,ind,out,depth,open){
 if(!s||typeof s!=="object"){out.push("any");return;}
 if(s.$ref){const n=refName(s.$ref);if(open&&depth<4){out.push($("a",{href:"#schema-"+slug(n)},n)," ");typeOf(deref(s),ind,out,depth+1,open);return;}
  out.push($("a",{href:"#schema-"+slug(n)},n));return;}
 const alt=s.anyOf||s.oneOf;
 if(alt){alt.forEach((x,i)=>{if(i)out.push(" | ");typeOf(x,ind,out,depth,open);});return;}
 if(s.allOf){s.allOf.forEach((x,i)=>{if(i)out.push(" & ");typeOf(x,ind,out,depth,open);});return;}
 if(s.const!==undefined){out.push(JSON.stringify(s.const));return;}
 if(s.enum){out.push(s.enum.map((x)=>JSON.stringify(x)).join(" | "));return;}
 const t=Array.isArray(s.type)?s.type:[s.type];
 t.forEach((ty,i)=>{if(i)out.push(" | ");
  if(ty==="array"){const o=[];typeOf(s.items,ind,o,depth,open);out.push(...o,"[]");}
  else if(ty==="object"||(!ty&&s.properties)){const p=s.properties||{};const keys=Object.keys(p);
   if(!keys.length){const ap=s.additionalProperties;if(ap&&typeof ap==="object"&&Object.keys(ap).length){out.push("{ [key]: ");typeOf(ap,ind,out,depth,open);out.push(" }");}else out.push("object");return;}
   if(depth>6){out.push("{ … }");return;}
   out.push("{\\n");const req=new Set(s.required||[]);
   for(const k of keys){out.push(ind+"  "+k+(req.has(k)?"":"?")+": ");typeOf(p[k],ind+"  ",out,depth+1,open);
    const d=p[k]&&(p[k].description||deref(p[k]).description);out.push(d?"  // "+plain(d)+"\\n":"\\n");}
   if(s.additionalProperties&&typeof s.additionalProperties==="object"&&!Object.keys(s.additionalProperties).length)out.push(ind+"  …\\n");
   out.push(ind+"}");}
  else out.push(ty||"any");});
}
const plain=(t)=>String(t).replace(/\\x60/g,"");
function schemaBlock(label,schema,open){const out=[];typeOf(schema,"",out,0,open);
 return $("details",open?{open:""}:{},$("summary",{},label),$("pre",{},...out));}
function mediaBlock(media,type,open){const f=document.createDocumentFragment();
 f.append($("p",{},$("code",{},type)));
 if(media.schema)f.append(schemaBlock("Schema",media.schema,open));
 const ex=exampleOf(media);if(ex!==undefined)f.append($("details",{open:""},$("summary",{},"Example"),typeof ex==="string"?$("pre",{},ex):pretty(ex)));
 return f;}
function paragraphs(text){const f=document.createDocumentFragment();let list=null;
 const parts=String(text||"").split(/^\\x60\\x60\\x60[^\\n]*\\n([\\s\\S]*?)^\\x60\\x60\\x60\\s*$/m);
 if(parts.length>1){parts.forEach((p,i)=>{f.append(i%2?$("pre",{},p.replace(/\\n$/,"")):paragraphs(p));});return f;}
 for(const block of String(text||"").split(/\\n\\s*\\n/)){for(const line of block.split("\\n")){
  const h=/^##\\s+(.*)/.exec(line);if(h){list=null;f.append($("h3",{},...inline(h[1])));continue;}
  const li=/^-\\s+(.*)/.exec(line);if(li){if(!list){list=$("ul");f.append(list);}list.append($("li",{},...inline(li[1])));continue;}
  list=null;if(line.trim())f.append($("p",{},...inline(line)));}list=null;}
 return f;}
function inline(s){const out=[];const re=/\`([^\`]+)\`|\\*\\*([^*]+)\\*\\*|\\[([^\\]]+)\\]\\((\\/[^)\\s]*)\\)/g;let last=0,m;
 while((m=re.exec(s))){out.push(s.slice(last,m.index));
  if(m[1]!==undefined)out.push($("code",{},m[1]));else if(m[2]!==undefined)out.push($("strong",{},m[2]));else out.push($("a",{href:m[4]},m[3]));
  last=re.lastIndex;}
 out.push(s.slice(last));return out;}
function operation(path,method,op){
 const sec=op.security||doc.security||[];
 const scopes=sec.flatMap((r)=>Object.entries(r).map(([k,v])=>v.length?k+": "+v.join(", "):k));
 const body=$("div");
 if(op.description)body.append(paragraphs(op.description));
 body.append($("p",{class:"lock"},scopes.length?"Auth: "+scopes.join(" or "):"Auth: none"));
 const ps=op.parameters||[];
 if(ps.length){const tb=$("tbody");
  for(const p0 of ps){const p=p0.$ref?{}:p0;const o=[];typeOf(p.schema,"",o,0);
   tb.append($("tr",{},$("td",{},$("code",{},p.name||"")),$("td",{},p.in||""),$("td",{},p.required?"yes":"no"),$("td",{},$("code",{},...o)),$("td",{},...inline(p.description||""))));}
  body.append($("h3",{},"Parameters"),$("table",{},$("thead",{},$("tr",{},$("th",{scope:"col"},"name"),$("th",{scope:"col"},"in"),$("th",{scope:"col"},"required"),$("th",{scope:"col"},"type"),$("th",{scope:"col"},"description"))),tb));}
 if(op.requestBody&&op.requestBody.content){body.append($("h3",{},"Request body"));
  if(op.requestBody.description)body.append($("p",{},...inline(op.requestBody.description)));
  for(const[t,m]of Object.entries(op.requestBody.content))body.append(mediaBlock(m,t,true));}
 body.append($("h3",{},"Responses"));
 for(const[code,r0]of Object.entries(op.responses||{})){const r=r0.$ref?{}:r0;
  const d=$("details",/^2/.test(code)?{open:""}:{},$("summary",{},$("strong",{},code)," ",...inline(r.description||"")));
  for(const[t,m]of Object.entries(r.content||{}))d.append(mediaBlock(m,t));body.append(d);}
 const id="op-"+slug(method+" "+path);
 return $("details",{class:"op",id,"data-q":(method+" "+path+" "+(op.summary||"")).toLowerCase()},
  $("summary",{},$("span",{class:"m "+method},method.toUpperCase()),$("code",{},path),$("span",{class:"sum"},op.summary||"")),body);}
function render(){
 const info=doc.info||{};document.title=(info.title||"API")+" API reference";
 const groups=new Map();for(const t of doc.tags||[])groups.set(t.name,{tag:t,ops:[]});
 for(const[path,item]of Object.entries(doc.paths||{}))for(const[method,op]of Object.entries(item)){
  if(!/^(get|put|post|delete|patch|head|options|trace)$/.test(method))continue;
  const tag=(op.tags&&op.tags[0])||"other";if(!groups.has(tag))groups.set(tag,{tag:{name:tag},ops:[]});groups.get(tag).ops.push([path,method,op]);}
 const nav=$("ul");const main=document.createDocumentFragment();
 const search=$("input",{type:"search",placeholder:"Filter by path, method or summary","aria-label":"Filter operations"});
 main.append($("h1",{},(info.title||"API")+" "+(info.version||"")),paragraphs(info.description),search);
 for(const{tag,ops}of groups.values()){if(!ops.length)continue;const id="tag-"+slug(tag.name);
  nav.append($("li",{},$("a",{href:"#"+id},tag.name)));
  const sec=$("section",{id,"aria-labelledby":id+"-h"},$("h2",{id:id+"-h"},tag.name));
  if(tag.description)sec.append($("p",{},...inline(tag.description)));
  for(const[p,m,o]of ops)sec.append(operation(p,m,o));main.append(sec);}
 const schemas=(doc.components&&doc.components.schemas)||{};const ss=$("section",{id:"schemas","aria-labelledby":"schemas-h"},$("h2",{id:"schemas-h"},"Schemas"));
 for(const[n,s]of Object.entries(schemas)){const out=[];typeOf(s,"",out,0);
  const d=$("details",{id:"schema-"+slug(n)},$("summary",{},$("code",{},n)," ",...inline(s.description||"")),$("pre",{},...out));
  const ex=s.example!==undefined?s.example:Array.isArray(s.examples)?s.examples[0]:undefined;if(ex!==undefined)d.append($("p",{},"Example"),pretty(ex));
  ss.append(d);}
 nav.append($("li",{},$("a",{href:"#schemas"},"schemas")),$("li",{},$("a",{href:"/openapi.json"},"openapi.json")));
 main.append(ss);
 document.getElementById("nav").replaceChildren(nav);app.replaceChildren(main);
 search.addEventListener("input",()=>{const q=search.value.trim().toLowerCase();
  for(const d of document.querySelectorAll("details.op"))d.hidden=!!q&&!d.dataset.q.includes(q);});
 if(location.hash){const t=document.getElementById(location.hash.slice(1));if(t){if(t.tagName==="DETAILS")t.open=true;t.scrollIntoView();}}
}
status("Loading /openapi.json …");
fetch("/openapi.json",{headers:{accept:"application/json"}}).then((r)=>{if(!r.ok)throw new Error("HTTP "+r.status);return r.json();})
 .then((d)=>{doc=d;render();}).catch((e)=>status("Could not load /openapi.json: "+e.message));
`;

/** The API reference page; `guides` is the navigation to the reference pages (HTML). */
export const docsHtml = (guides: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>PaperGuru API reference</title>
<style>${CSS}</style>
</head>
<body>
<header>
${guides}
<nav id="nav" aria-label="API sections"></nav>
</header>
<main id="app" aria-live="polite">
<noscript><p>This page renders <a href="/openapi.json">/openapi.json</a> with JavaScript; the document itself is readable without it.</p></noscript>
</main>
<script>${JS}</script>
</body>
</html>
`;

let csp: Promise<string> | null = null;

/** CSP for /docs: only the inline script (by hash) and inline style; fetches only same-origin. */
export function docsCsp(): Promise<string> {
  csp ??= crypto.subtle.digest("SHA-256", new TextEncoder().encode(JS)).then((d) => {
    const b64 = btoa(String.fromCharCode(...new Uint8Array(d)));
    return `default-src 'none'; script-src 'sha256-${b64}'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
  });
  return csp;
}
