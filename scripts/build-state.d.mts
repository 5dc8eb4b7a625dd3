// Types of build-state.mjs (plain JavaScript, so that bin/warden.mjs reads it without compiling).
export declare const sourceFolders: readonly string[];
export declare const buildFiles: readonly string[];
export declare const outFolder: string;
export declare const stampFile: string;
export declare function isSkipped(path: string): boolean;
export declare function buildInputs(root: string): string[];
export declare function inputState(root: string): Record<string, string>;
export declare function stampText(root: string): string;
export declare function isBuildCurrent(root: string): boolean;
