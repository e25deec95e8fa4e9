import Foundation
import PackagePlugin

/// Turns the files under a target's `Assets` folder into one generated Swift file, so the web app is
/// compiled into the binary and nothing has to be installed beside it.
@main
struct EmbedWebAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let assets = target.directoryURL.appending(path: "Assets")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedAssets.swift")
        var inputs: [URL] = []
        if let walker = FileManager.default.enumerator(at: assets, includingPropertiesForKeys: [.isRegularFileKey]) {
            for case let url as URL in walker
            where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                inputs.append(url)
            }
        }
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) web assets",
                executable: try context.tool(named: "EmbedWebAssetsTool").url,
                arguments: [assets.path, output.path],
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
