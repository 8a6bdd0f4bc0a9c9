// Stand-in for hashicorp/external's "external" data source (same schema and stdin/stdout JSON
// contract), served as registry.terraform.io/hashicorp/external over plugin protocol 5.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"os/exec"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type prov struct{}

func (prov) Metadata(_ context.Context, _ provider.MetadataRequest, r *provider.MetadataResponse) {
	r.TypeName, r.Version = "external", "2.3.5"
}
func (prov) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse)          {}
func (prov) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {}
func (prov) Resources(context.Context) []func() resource.Resource                              { return nil }
func (prov) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{func() datasource.DataSource { return data{} }}
}

type data struct{}
type model struct {
	Program    types.List   `tfsdk:"program"`
	WorkingDir types.String `tfsdk:"working_dir"`
	Query      types.Map    `tfsdk:"query"`
	Result     types.Map    `tfsdk:"result"`
	ID         types.String `tfsdk:"id"`
}

func (data) Metadata(_ context.Context, q datasource.MetadataRequest, r *datasource.MetadataResponse) {
	r.TypeName = q.ProviderTypeName
}
func (data) Schema(_ context.Context, _ datasource.SchemaRequest, r *datasource.SchemaResponse) {
	r.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"program":     schema.ListAttribute{ElementType: types.StringType, Required: true},
		"working_dir": schema.StringAttribute{Optional: true},
		"query":       schema.MapAttribute{ElementType: types.StringType, Optional: true},
		"result":      schema.MapAttribute{ElementType: types.StringType, Computed: true},
		"id":          schema.StringAttribute{Computed: true},
	}}
}
func (data) Read(ctx context.Context, q datasource.ReadRequest, r *datasource.ReadResponse) {
	var m model
	var program []string
	query := map[string]string{}
	r.Diagnostics.Append(q.Config.Get(ctx, &m)...)
	r.Diagnostics.Append(m.Program.ElementsAs(ctx, &program, false)...)
	if !m.Query.IsNull() {
		r.Diagnostics.Append(m.Query.ElementsAs(ctx, &query, false)...)
	}
	if r.Diagnostics.HasError() {
		return
	}
	if len(program) == 0 || program[0] == "" {
		r.Diagnostics.AddAttributeError(path.Root("program"), "External Program Missing",
			"The data source was configured without a program to execute. program must list the executable and its arguments.")
		return
	}
	stdin, _ := json.Marshal(query)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, program[0], program[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Stderr = m.WorkingDir.ValueString(), bytes.NewReader(stdin), &stderr
	stdout, err := cmd.Output()
	if err != nil {
		r.Diagnostics.AddAttributeError(path.Root("program"), "External Program Failed",
			"The program did not exit successfully; it must exit 0 and print a JSON object.\n\nProgram: "+program[0]+
				"\nError: "+err.Error()+"\nStderr: "+stderr.String())
		return
	}
	result := map[string]string{}
	if err := json.Unmarshal(stdout, &result); err != nil {
		r.Diagnostics.AddAttributeError(path.Root("program"), "Unexpected External Program Result",
			"The program's output must be a JSON object whose values are all strings.\n\nProgram: "+program[0]+
				"\nError: "+err.Error()+"\nStdout: "+string(stdout))
		return
	}
	var d = r.Diagnostics
	m.Result, d = types.MapValueFrom(ctx, types.StringType, result)
	r.Diagnostics.Append(d...)
	m.ID = types.StringValue("-")
	r.Diagnostics.Append(r.State.Set(ctx, &m)...)
}

func main() {
	err := providerserver.Serve(context.Background(), func() provider.Provider { return prov{} },
		providerserver.ServeOpts{Address: "registry.terraform.io/hashicorp/external", ProtocolVersion: 5})
	if err != nil {
		log.Fatal(err)
	}
}
